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
  Status out = *this;
  out.message_ = context + ": " + message_;
  out.contexts_.insert(out.contexts_.begin(), context);
  out.context_keys_.insert(out.context_keys_.begin(), {std::string(), MessageArgs{}});
  return out;
}

Status Status::WithContextKey(const std::string& context, std::string key, MessageArgs args) const {
  if (ok()) return *this;
  Status out = WithContext(context);
  out.context_keys_.front() = {std::move(key), std::move(args)};
  return out;
}

Status Status::WithKeys(std::string message_key, MessageArgs args, std::string hint_key) const {
  if (ok()) return *this;
  Status out = *this;
  out.message_key_ = std::move(message_key);
  out.hint_key_ = std::move(hint_key);
  out.args_ = std::move(args);
  out.contexts_.clear();
  out.context_keys_.clear();  // the keyed message is the whole message again
  return out;
}

Status Status::WithHintKey(std::string hint_key, MessageArgs args) const {
  if (ok()) return *this;
  Status out = *this;
  out.hint_key_ = std::move(hint_key);
  for (auto& arg : args) out.args_.push_back(std::move(arg));
  return out;
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

std::string ErrnoReasonKey(int error_number) {
  switch (error_number) {
    case ENOENT: return "error.errno.enoent";
    case ENOTDIR: return "error.errno.enotdir";
    case EISDIR: return "error.errno.eisdir";
    case EACCES: return "error.errno.eacces";
    case EPERM: return "error.errno.eperm";
    case ENAMETOOLONG: return "error.errno.enametoolong";
    case ELOOP: return "error.errno.eloop";
    case ENOSPC: return "error.errno.enospc";
    case EROFS: return "error.errno.erofs";
    case EDQUOT: return "error.errno.edquot";
    case EIO: return "error.errno.eio";
    case EMFILE:
    case ENFILE: return "error.errno.emfile";
    case ENOMEM: return "error.errno.enomem";
    case EEXIST: return "error.errno.eexist";
    case EBUSY: return "error.errno.ebusy";
    case EXDEV: return "error.errno.exdev";
    default: return "error.errno.other";
  }
}

Status StatusFromErrnoKeyed(const std::string& english_context, int error_number, std::string key,
                            MessageArgs args) {
  args.emplace_back("reason_key", ErrnoReasonKey(error_number));
  args.emplace_back("errno", std::to_string(error_number));
  return StatusFromErrno(english_context, error_number).WithKeys(std::move(key), std::move(args));
}

}  // namespace gpuprobe::core
