// Status and Result<T>: how every gpuprobe library function reports failure.
//
// A Status is either ok or a code plus a message written for the user (a full sentence)
// and an optional hint (what to run or install next). Result<T> holds a T or a non-ok
// Status. Exceptions never cross a module border: throwing third-party code (CLI11,
// nlohmann-json) is caught where it is called and turned into a Status. Only cli/ maps a
// Status to an exit code (see core/exit_code.h).
//
// Thread safety: Status and Result are values; distinct objects may be used concurrently.
#pragma once

#include <string>
#include <utility>
#include <variant>

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

  /// Returns a copy whose message is prefixed with `context + ": "`; ok stays ok.
  Status WithContext(const std::string& context) const;

  /// "message" or "message (hint)"; "ok" for an ok status.
  std::string ToString() const;

 private:
  Status(StatusCode code, std::string message, std::string hint)
      : code_(code), message_(std::move(message)), hint_(std::move(hint)) {}

  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string hint_;
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
