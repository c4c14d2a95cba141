// A library's own error messages, read from its source: each message as a pattern, the file
// and subsystem that print it, and the status the code returns with it. Two tables, generated
// from several releases each:
//   - NCCL's WARN formats (data/knowledge/nccl_warnings.json, tools/gen_nccl_warnings.py): the
//     ncclResult_t returned after the message, and the subsystem (socket, net_ib, ibvwrap,
//     proxy, bootstrap, transport, ...);
//   - the cuDNN frontend's error messages (data/knowledge/cudnn_frontend_messages.json,
//     tools/gen_cudnn_frontend_messages.py): the cudnn_frontend::error_code_t returned with it.
// A message is answered with its status and origin whatever the release, without a rule per
// message.
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

struct LibraryMessage {
  std::string format;     ///< as in the source: "socketStartConnect: Connect to %s failed : %s"
  std::string file;       ///< "src/misc/socket.cc"
  std::string subsystem;  ///< "socket"
  std::string result;     ///< the status: "ncclSystemError"; empty when the code goes on after it
  std::string first, last;  ///< the first and last release read that print it ("v2.18.6-1")
  size_t literal_bytes = 0; ///< how much of the format is fixed text (longer = more specific)
};

class LibraryMessageTable {
 public:
  /// ParseError naming the row for a bad regex or a missing field.
  static core::Result<LibraryMessageTable> Parse(std::string_view json_text);
  /// The embedded tables, each read on first use (only texts that mention the library pay for
  /// it). A message's pattern is compiled the first time its anchor (its longest fixed piece) is
  /// seen.
  static core::Result<const LibraryMessageTable*> Nccl();
  static core::Result<const LibraryMessageTable*> CudnnFrontend();

  LibraryMessageTable();
  LibraryMessageTable(LibraryMessageTable&&) noexcept;
  LibraryMessageTable& operator=(LibraryMessageTable&&) noexcept;
  ~LibraryMessageTable();

  /// The message `text` prints, the most specific when several match; nullptr when none does.
  const LibraryMessage* Match(std::string_view text) const;
  /// The status API the results belong to ("nccl", "cudnn_frontend").
  const std::string& api() const { return api_; }
  const std::vector<LibraryMessage>& rows() const { return rows_; }
  const std::vector<std::string>& releases() const { return releases_; }
  const std::string& source() const { return source_; }

 private:
  std::string api_;
  std::vector<LibraryMessage> rows_;
  std::vector<std::string> releases_;
  std::string source_;
  struct Compiled;  // the anchors in one literal automaton; the patterns, compiled on demand
  std::vector<std::string> regexes_;
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace gpuprobe::doctor
