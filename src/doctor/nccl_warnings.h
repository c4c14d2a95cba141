// NCCL's own WARN messages, read from its source (data/knowledge/nccl_warnings.json, generated
// by tools/gen_nccl_warnings.py from several NCCL releases): each printf format as a pattern,
// the file and subsystem that print it (socket, net_ib, ibvwrap, proxy, bootstrap, transport,
// ...), and the ncclResult_t the code returns after it. A "NCCL WARN ..." line is answered with
// that status and subsystem whatever the release, without a rule per message.
//
// Thread safety: immutable after Parse(); Match() is safe to call concurrently.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace gpuprobe::doctor {

struct NcclWarning {
  std::string format;     ///< as in the source: "socketStartConnect: Connect to %s failed : %s"
  std::string file;       ///< "src/misc/socket.cc"
  std::string subsystem;  ///< "socket"
  std::string result;     ///< "ncclSystemError"; empty when the code goes on after warning
  std::string first, last;  ///< the first and last release read that print it ("v2.18.6-1")
  size_t literal_bytes = 0; ///< how much of the format is fixed text (longer = more specific)
};

class NcclWarningTable {
 public:
  /// ParseError naming the row for a bad regex or a missing field.
  static core::Result<NcclWarningTable> Parse(std::string_view json_text);
  /// The embedded table, read on first use (only texts that mention NCCL pay for it). Each
  /// format's pattern is compiled the first time its anchor (its longest fixed piece) is seen.
  static core::Result<const NcclWarningTable*> Embedded();

  NcclWarningTable();
  NcclWarningTable(NcclWarningTable&&) noexcept;
  NcclWarningTable& operator=(NcclWarningTable&&) noexcept;
  ~NcclWarningTable();

  /// The warning whose format `text` prints, the most specific when several match; nullptr
  /// when none does.
  const NcclWarning* Match(std::string_view text) const;
  const std::vector<NcclWarning>& rows() const { return rows_; }
  const std::vector<std::string>& releases() const { return releases_; }
  const std::string& source() const { return source_; }

 private:
  std::vector<NcclWarning> rows_;
  std::vector<std::string> releases_;
  std::string source_;
  struct Compiled;  // the anchors in one literal automaton; the patterns, compiled on demand
  std::vector<std::string> regexes_;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace gpuprobe::doctor
