#include "core/status.h"

#include <cerrno>
#include <cstring>

namespace gpuprobe::core {

const char* StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kParseError: return "parse error";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kIoError: return "I/O error";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

Status Status::WithContext(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_, hint_);
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  if (hint_.empty()) return message_;
  return message_ + " (" + hint_ + ")";
}

Status StatusFromErrno(const std::string& context, int error_number) {
  std::string message = context + ": " + std::strerror(error_number);
  switch (error_number) {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case EACCES:
    case ENAMETOOLONG:
    case ELOOP:
      return Status::InvalidArgument(message);
    default:
      return Status::IoError(message);
  }
}

}  // namespace gpuprobe::core
