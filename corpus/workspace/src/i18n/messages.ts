// SPDX-License-Identifier: MIT
// messages.ts: UI strings in several scripts (RTL included) 🌐.

export interface Message {
  id: string;
  text: string;
  rtl?: boolean;
}

export const MESSAGES: Message[] = [
  { id: "save", text: "Save changes 💾" },
  { id: "save.ar", text: "احفظ التغييرات", rtl: true },
  { id: "save.he", text: "שמור שינויים", rtl: true },
  { id: "cancel", text: "Cancel ❌" },
  { id: "cancel.ar", text: "إلغاء", rtl: true },
  { id: "welcome", text: "Welcome, friend 👋" },
  { id: "welcome.ar", text: "مرحبا يا صديقي", rtl: true },
  { id: "welcome.fa", text: "خوش آمدید", rtl: true },
  { id: "welcome.ja", text: "ようこそ 🎌" },
  { id: "welcome.zh", text: "欢迎光临" },
  { id: "error", text: "Something went wrong 😢" },
  { id: "error.ar", text: "حدث خطأ ما", rtl: true },
  { id: "search", text: "Search: type a query…" },
  { id: "search.ko", text: "검색어를 입력하세요" },
  { id: "empty", text: "No results — try another value" },
  { id: "family", text: "Family: 👨‍👩‍👧‍👦 (one grapheme, 11 UTF-16 units)" },
  { id: "flag", text: "Flags 🇩🇪 🇯🇵 🇧🇷" },
  { id: "math", text: "Math 𝑥 + 𝑦 = 𝑧 (astral letters)" },
  { id: "mixed", text: "abc مرحبا def שלום ghi", rtl: true },
  { id: "zalgo", text: "z͑a͒l͓g͔o͕ text" },
];

export function lookup(id: string): Message | undefined {
  return MESSAGES.find((m) => m.id === id);
}

export function hello(): string {
  // hello in Arabic: مرحبا; in Hebrew: שלום
  return lookup("welcome")?.text ?? "hello";
}
