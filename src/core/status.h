// Status and Result<T>: how every gpuprobe library function reports failure.
//
// A Status is either ok or a code plus a message written for the user (a full sentence)
// and an optional hint (what to run or install next). Result<T> holds a T or a non-ok
// Status. Exceptions never cross a module border: throwing third-party code (CLI11,
// nlohmann-json) is caught where it is called and turned into a Status. Only cli/ maps a
// Status to an exit code (see core/exit_code.h).
//
// A Status may also carry a text key (data/texts/<lang>/*.json, e.g. "error.file.missing") and
// named arguments, so cli/ can print the message in the user's language; message() stays the
// English sentence, for logs and JSON. Contexts added with WithContext() are kept apart from a
// keyed message so they can be put in front of its translation.
//
// Thread safety: Status and Result are values; distinct objects may be used concurrently.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace gpuprobe::core {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  ///< bad usage or bad input (absurd size, missing file): exit 2
  kParseError,       ///< malformed JSON / XML / CSV: exit 2
  kNotFound,         ///< the thing asked for is not on this machine (a GPU): exit 3
  kUnavailable,      ///< a driver, library or device is missing here: exit 3
  kIoError,          ///< reading or writing failed for a reason outside the input
  kInternal,         ///< a bug in gpuprobe
};

/// The name of a code, e.g. "invalid argument".
const char* StatusCodeName(StatusCode code);

/// Named arguments of a keyed message: {"path", "/etc/x"} fills "{path}" in the text. An
/// argument named "<name>_key" holds a text key: "{<name>}" is filled with that text (in the
/// same language, formatted with the same arguments), e.g. {"reason_key", "error.errno.enoent"}.
using MessageArgs = std::vector<std::pair<std::string, std::string>>;

/// A sentence for users as a text key and its arguments, carried beside an English string
/// (a prediction's basis, a skip reason) so views can render it in the user's language
/// (report::FormatWithArgs). An empty key means "not translatable: show the English".
struct TextRef {
  std::string key;
  MessageArgs args{};
  bool empty() const { return key.empty(); }
};

class [[nodiscard]] Status {
 public:
  /// An ok status.
  Status() = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string message, std::string hint = {}) {
    return Status(StatusCode::kInvalidArgument, std::move(message), std::move(hint));
  }
  static Status ParseError(std::string message, std::string hint = {}) {
    return Status(StatusCode::kParseError, std::move(message), std::move(hint));
  }
  static Status NotFound(std::string message, std::string hint = {}) {
    return Status(StatusCode::kNotFound, std::move(message), std::move(hint));
  }
  static Status Unavailable(std::string message, std::string hint = {}) {
    return Status(StatusCode::kUnavailable, std::move(message), std::move(hint));
  }
  static Status IoError(std::string message, std::string hint = {}) {
    return Status(StatusCode::kIoError, std::move(message), std::move(hint));
  }
  static Status Internal(std::string message, std::string hint = {}) {
    return Status(StatusCode::kInternal, std::move(message), std::move(hint));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::string& hint() const { return hint_; }

  /// Returns a copy whose message is prefixed with `context + ": "`; ok stays ok. The
  /// context is also recorded in contexts() (outermost first) for a translated rendering.
  Status WithContext(const std::string& context) const;
  /// WithContext(context) whose context also has a text key with its arguments, for a context
  /// made of words rather than a file name or a flag.
  Status WithContextKey(const std::string& context, std::string key, MessageArgs args) const;

  /// Returns a copy that carries text keys for its message and (when non-empty) its hint, with
  /// the named arguments both are formatted with. message() and hint() keep the English
  /// sentences. Ok stays ok. The keys must exist in every language (a test renders them).
  Status WithKeys(std::string message_key, MessageArgs args = {}, std::string hint_key = {}) const;
  /// The same with only a hint key (the message stays untranslated).
  Status WithHintKey(std::string hint_key, MessageArgs args = {}) const;

  /// The message's text key; empty when the message is not translatable.
  const std::string& message_key() const { return message_key_; }
  /// The hint's text key; empty when the hint is not translatable (or absent).
  const std::string& hint_key() const { return hint_key_; }
  /// Arguments of message_key() and hint_key().
  const MessageArgs& message_args() const { return args_; }
  /// Contexts added by WithContext() after the message was made, outermost first.
  const std::vector<std::string>& contexts() const { return contexts_; }
  /// The text key and arguments of each context, parallel to contexts(); an empty key for a
  /// context without one.
  const std::vector<std::pair<std::string, MessageArgs>>& context_keys() const { return context_keys_; }

  /// "message" or "message (hint)"; "ok" for an ok status.
  std::string ToString() const;

 private:
  Status(StatusCode code, std::string message, std::string hint)
      : code_(code), message_(std::move(message)), hint_(std::move(hint)) {}

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string hint_;
  std::string message_key_;
  std::string hint_key_;
  MessageArgs args_;
  std::vector<std::string> contexts_;
  std::vector<std::pair<std::string, MessageArgs>> context_keys_;
};

/// A value or a non-ok Status, shaped so std::expected can replace it later. [[nodiscard]]:
/// dropping a Result or a Status on the floor is a compile error in CI (-Werror).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit on purpose
    if (std::get<Status>(data_).ok()) {
      data_ = Status::Internal("Result constructed from an ok Status without a value");
    }
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  /// The error; an ok Status when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }

  /// The value. Calling these on an error is a programmer error (std::bad_variant_access).
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

/// Converts an errno value to a Status: ENOENT/ENOTDIR/EISDIR/EACCES are the user's input
/// (InvalidArgument), anything else is an IoError. `context` names what was attempted.
Status StatusFromErrno(const std::string& context, int error_number);

/// The text key of an errno value's reason ("error.errno.enoent"; "error.errno.other" with the
/// argument {errno} for a value without its own text).
std::string ErrnoReasonKey(int error_number);

/// A keyed errno Status: message "<english_context>: <strerror>" in English; text `key` with
/// the arguments `args` plus {reason} (the text of ErrnoReasonKey, as "reason_key") and
/// {errno}. Same codes as StatusFromErrno.
Status StatusFromErrnoKeyed(const std::string& english_context, int error_number, std::string key,
                            MessageArgs args);

}  // namespace gpuprobe::core

/// Returns early from the enclosing function with the Status of `expr` when it is not ok.
#define GPUPROBE_RETURN_IF_ERROR(expr)                 \
  do {                                                 \
    ::gpuprobe::core::Status _gpuprobe_status = (expr); \
    if (!_gpuprobe_status.ok()) return _gpuprobe_status; \
  } while (0)

/// Evaluates `expr` (a Result<T>); on error returns its Status, else moves the value into `lhs`.
#define GPUPROBE_ASSIGN_OR_RETURN(lhs, expr)          \
  do {                                                \
    auto _gpuprobe_result = (expr);                   \
    if (!_gpuprobe_result.ok()) return _gpuprobe_result.status(); \
    lhs = std::move(_gpuprobe_result.value());        \
  } while (0)
