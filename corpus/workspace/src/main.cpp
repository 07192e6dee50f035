// SPDX-License-Identifier: MIT
// main.cpp: 入口点 (entry point) of the sample app; prints greetings 😀.
#include <cstdio>
#include <string>
#include <vector>

#include "greet.h"

namespace app {

// 漢字 comment: 本関数は挨拶を返す (returns a greeting).
struct Greeting {
  std::string language;  // 言語
  std::string text;      // テキスト
};

std::vector<Greeting> all_greetings() {
  return {
      {"English", "hello"},
      {"German", "Hallo, schöne Grüße"},
      {"French", "Bonjour, ça va?"},
      {"Spanish", "¡Hola, señor!"},
      {"Chinese", "你好，世界"},
      {"Japanese", "こんにちは世界"},
      {"Korean", "안녕하세요"},
      {"Arabic", "مرحبا بالعالم"},
      {"Hebrew", "שלום עולם"},
      {"Russian", "Привет, мир"},
      {"Greek", "Γειά σου Κόσμε"},
      {"Hindi", "नमस्ते दुनिया"},
      {"Thai", "สวัสดีชาวโลก"},
      {"Emoji", "👋🌍 hello 😀"},
      {"Vietnamese", "Xin chào thế giới"},
  };
}

// Prints every greeting; emoji 🎉 are two UTF-16 units each.
int print_all() {
  int count = 0;
  for (const auto& g : all_greetings()) {
    std::printf("%s: %s\n", g.language.c_str(), g.text.c_str());  // ✓ ok
    ++count;
  }
  return count;
}

}  // namespace app

int main() {
  // hello → 你好 → مرحبا → 👋
  int n = app::print_all();
  std::printf("printed %d greetings ✨\n", n);
  return n > 0 ? 0 : 1;
}
