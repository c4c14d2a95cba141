// Errors of the host that are not GPU errors, read from their own sources of truth rather
// than written one by one: Linux errno (name, number, glibc's message in English and Chinese)
// and Python's built-in exception classes, both in data/knowledge/host_errors.json, generated
// by tools/gen_host_errors.py from the kernel headers, glibc and Python themselves.
//
// explain uses them when no entry of the knowledge base recognises a text: "[Errno 24] Too
// many open files" is then said to be the operating system's EMFILE, in the user's language,
// instead of "not recognised". A hand-written entry (disk_full, connection_refused, ...) always
// wins: it knows more than the generic reading.
//
// Thread safety: immutable after Parse(); concurrent lookups are safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace re2 {
class RE2;
}

namespace gpuprobe::doctor {

struct OsError {
  std::string name;        ///< "EMFILE"
  int number = 0;          ///< 24
  std::string message;     ///< glibc's strerror: "Too many open files"
  std::string message_zh;  ///< glibc's zh_CN catalogue: "打开的文件过多"; may be empty
};

struct PythonException {
  std::string name;    ///< "ImportError"
  std::string base;    ///< "Exception"
  std::string doc;     ///< the first line of its docstring (English); may be empty
  std::string module;  ///< the standard-library module that defines it ("json.decoder"); empty for a builtin
};

/// What a text says of the host: an errno it names and/or a Python exception it raised.
struct HostError {
  const OsError* os = nullptr;
  const PythonException* python = nullptr;
  /// The errno was found only by glibc's message ("No such file or directory"), not by its
  /// number or name: a Python exception on the same text is then the better headline.
  bool os_by_message = false;
  /// The Python exception is OSError or one of its subclasses: it carries the errno, which is
  /// then the headline even when only its message was seen ("ConnectionError: ... Connection
  /// reset by peer" is ECONNRESET).
  bool python_carries_errno = false;
  size_t offset = 0;  ///< where in the text the headline's evidence is
  /// The headline: the errno, unless only its message was seen beside a Python exception.
  bool OsLeads() const { return os != nullptr && (python == nullptr || !os_by_message || python_carries_errno); }
};

class HostErrorTable {
 public:
  static core::Result<std::unique_ptr<HostErrorTable>> Parse(std::string_view json_text);
  static core::Result<const HostErrorTable*> Embedded();
  ~HostErrorTable();

  /// The errno and the Python exception `text` reports, read by their grammar: "[Errno N]",
  /// "errno N", "errno=N", Rust's "(os error N)", an E-name as a word (EMFILE), glibc's message of 16 characters
  /// or more ("Too many open files"); a line "[module.]NameError: ..." or a Python
  /// traceback's last line naming a built-in exception. nullopt when neither is there.
  std::optional<HostError> Find(std::string_view text) const;

  const OsError* ErrnoByNumber(int number) const;
  const OsError* ErrnoByName(std::string_view name) const;
  const PythonException* PythonByName(std::string_view name) const;
  /// Whether the exception is `ancestor` or derives from it (through the table's bases).
  bool DerivesFrom(const PythonException& exception, std::string_view ancestor) const;
  const std::vector<OsError>& errnos() const { return errnos_; }
  const std::vector<PythonException>& python_exceptions() const { return python_; }

 private:
  HostErrorTable();
  std::vector<OsError> errnos_;
  std::vector<PythonException> python_;
  std::unique_ptr<re2::RE2> errno_number_, errno_name_, python_line_, syntax_frame_;
};

}  // namespace gpuprobe::doctor
