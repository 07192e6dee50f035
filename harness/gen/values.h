// SPDX-License-Identifier: MIT
// The kinds of value the generator pools and offers (ValueKind), on their own: the workspace scan,
// the prose reader and the plan all speak them, and none of the first two needs the plan.
#pragma once

namespace ctxo::gen {

/// What a harvested value is, whatever the property it came under was called.
enum class ValueKind {
  kId,      ///< `id`, `*Id`, `symbolId`, `nodeId`, `uuid`: strings and integers.
  kName,    ///< `name`, `symbol`, `symbolName`, `qualifiedName`, `*Name`; the name in a `path::name::kind` id.
  kPath,    ///< `file`, `path`, `relativePath`, `*File`, `*Path`; the path of a `file:line` anchor or a `file://` uri.
  kUri,     ///< `file://` uris (other schemes are never pooled: a generated call stays on this machine).
  kCursor,  ///< `cursor`, `nextCursor`, page tokens.
  kSnippet, ///< Short text for query parameters: identifiers and phrases of the workspace's lines (never from answers).
  kGlob,    ///< `glob`, `filePattern`, `include`: globs that match workspace files (`*.ts`, `src/**`; never from answers).
  kFileType,  ///< `fileType`, `extension`: the workspace files' extensions (`ts`, `py`; never from answers).
  kSql,       ///< `sql`, `statement` (and `query` of a tool that says SQL): SELECTs over the tables answers named.
  kRegex,     ///< `regex`, `regexp` (and a `pattern`/`query` described as a regex): patterns over names the workspace and answers hold.
  kDirectory, ///< `root`, `projectRoot`, `cwd`, `dir`, `directory`, `folder`: the workspace root, then its directories (never from answers).
  kModule,    ///< `module`, `moduleName`, `specifier`: the workspace's files as root-relative specifiers (`./src/util`), then what its imports name (never from answers).
  kRevision,  ///< `revision`, `rev`, `ref`, `commit`, `sha`, `branch`, `tag`, `base`, `head`: the workspace's git commits (short and full ids), branches and tags; answers' `commit`/`sha`/`hash` values that look like commit ids.
};

/// "id", "name", "path", "uri", "cursor", "snippet", "glob", "file type", "sql", "regex", "directory", "module",
/// "revision".
inline const char* kind_name(ValueKind k) {
  switch (k) {
    case ValueKind::kId: return "id";
    case ValueKind::kName: return "name";
    case ValueKind::kPath: return "path";
    case ValueKind::kUri: return "uri";
    case ValueKind::kCursor: return "cursor";
    case ValueKind::kSnippet: return "snippet";
    case ValueKind::kGlob: return "glob";
    case ValueKind::kFileType: return "file type";
    case ValueKind::kSql: return "sql";
    case ValueKind::kRegex: return "regex";
    case ValueKind::kDirectory: return "directory";
    case ValueKind::kModule: return "module";
    case ValueKind::kRevision: return "revision";
  }
  return "?";
}

}  // namespace ctxo::gen
