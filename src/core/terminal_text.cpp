#include "core/terminal_text.h"

#include <cstdint>

#include <fmt/format.h>

namespace gpuprobe::core {
namespace {

/// Length of the UTF-8 sequence a lead byte starts (0: not a lead byte).
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

/// The code point of a complete sequence, or -1 when it is malformed (overlong, surrogate,
/// above U+10FFFF, a bad continuation byte).
int32_t Decode(std::string_view s) {
  auto c = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  for (size_t i = 1; i < s.size(); ++i) {
    if ((c(i) & 0xC0) != 0x80) return -1;
  }
  int32_t cp = 0;
  switch (s.size()) {
    case 1: return c(0);
    case 2: cp = ((c(0) & 0x1F) << 6) | (c(1) & 0x3F); return cp >= 0x80 ? cp : -1;
    case 3:
      cp = ((c(0) & 0x0F) << 12) | ((c(1) & 0x3F) << 6) | (c(2) & 0x3F);
      return cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF) ? cp : -1;
    case 4:
      cp = ((c(0) & 0x07) << 18) | ((c(1) & 0x3F) << 12) | ((c(2) & 0x3F) << 6) | (c(3) & 0x3F);
      return cp >= 0x10000 && cp <= 0x10FFFF ? cp : -1;
    default: return -1;
  }
}

/// Code points a terminal acts on rather than shows: C0 except tab and newline, DEL, C1,
/// and the bidirectional overrides and isolates that reorder what the reader sees.
bool IsControl(int32_t cp) {
  if (cp == '\t' || cp == '\n') return false;
  if (cp < 0x20 || cp == 0x7F) return true;
  if (cp >= 0x80 && cp <= 0x9F) return true;
  if (cp >= 0x202A && cp <= 0x202E) return true;
  if (cp >= 0x2066 && cp <= 0x2069) return true;
  return false;
}

void AppendEscapedBytes(std::string_view bytes, std::string* out) {
  for (unsigned char b : bytes) *out += fmt::format("\\x{:02x}", b);
}

/// Appends the safe form of `s` to `out`; returns how many bytes at the end form an
/// incomplete (so far valid) sequence that was not consumed.
size_t AppendSafe(std::string_view s, std::string* out, bool final) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x7F) {  // the common case: printable ASCII runs
      size_t j = i;
      while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 && static_cast<unsigned char>(s[j]) < 0x7F) ++j;
      out->append(s.substr(i, j - i));
      i = j;
      continue;
    }
    size_t length = SequenceLength(b);
    if (length == 0) {
      AppendEscapedBytes(s.substr(i, 1), out);
      ++i;
      continue;
    }
    if (i + length > s.size()) {
      bool continuations_ok = true;
      for (size_t k = i + 1; k < s.size(); ++k) continuations_ok &= (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80;
      if (!final && continuations_ok) return s.size() - i;
      AppendEscapedBytes(s.substr(i, 1), out);
      ++i;
      continue;
    }
    int32_t cp = Decode(s.substr(i, length));
    if (cp < 0) {
      AppendEscapedBytes(s.substr(i, 1), out);
      ++i;
      continue;
    }
    if (IsControl(cp)) {
      *out += cp <= 0xFF ? fmt::format("\\x{:02x}", cp) : fmt::format("\\u{:04x}", cp);
    } else {
      out->append(s.substr(i, length));
    }
    i += length;
  }
  return 0;
}

}  // namespace

std::string EscapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendSafe(text, &out, true);
  return out;
}

TerminalSafeBuf::~TerminalSafeBuf() {
  FlushPending();
  target_->pubsync();
}

void TerminalSafeBuf::Feed(std::string_view bytes) {
  chunk_.clear();
  std::string_view input = bytes;
  std::string joined;
  if (!pending_.empty()) {
    joined = pending_ + std::string(bytes);
    input = joined;
    pending_.clear();
  }
  size_t left = AppendSafe(input, &chunk_, false);
  if (left > 0) pending_.assign(input.substr(input.size() - left));
  if (!chunk_.empty()) target_->sputn(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
}

void TerminalSafeBuf::FlushPending() {
  if (pending_.empty()) return;
  chunk_.clear();
  AppendSafe(pending_, &chunk_, true);
  pending_.clear();
  target_->sputn(chunk_.data(), static_cast<std::streamsize>(chunk_.size()));
}

void TerminalSafeBuf::WriteRaw(std::string_view bytes) {
  FlushPending();
  target_->sputn(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
  char c = traits_type::to_char_type(ch);
  Feed(std::string_view(&c, 1));
  return ch;
}

std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
  Feed(std::string_view(s, static_cast<size_t>(n)));
  return n;
}

int TerminalSafeBuf::sync() {
  // A flush does not split a character: what is pending stays until it completes.
  return target_->pubsync();
}

void WriteTerminalControl(std::ostream& out, std::string_view sequence) {
  if (auto* safe = dynamic_cast<TerminalSafeBuf*>(out.rdbuf())) {
    safe->WriteRaw(sequence);
  } else {
    out << sequence;
  }
}

}  // namespace gpuprobe::core
