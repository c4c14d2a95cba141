// A core::Status rendered in the user's language: the text of its message key (and hint key)
// with its named arguments, behind the contexts WithContext() added. A Status without a key
// renders as its English message: errors from libraries gpuprobe does not own stay English.
//
// Thread safety: pure functions.
#pragma once

#include <string>

#include "core/status.h"
#include "report/i18n.h"

namespace gpuprobe::report {

/// The message of `status` in `texts`' language: "<context>: ...: <text of message_key>",
/// or message() when the status has no key.
std::string StatusMessage(const core::Status& status, const Texts& texts);

/// The hint of `status` in `texts`' language: the text of hint_key(), or hint() when the
/// status has no hint key; empty when there is no hint.
std::string StatusHint(const core::Status& status, const Texts& texts);

/// Formats text `key` with named arguments given at run time (core::MessageArgs, including
/// the "<name>_key" convention of core/status.h).
std::string FormatWithArgs(const Texts& texts, const std::string& key, const core::MessageArgs& args);

}  // namespace gpuprobe::report
