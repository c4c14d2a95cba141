#include "report/table.h"

#include <algorithm>

namespace gpuprobe::report {
namespace {

// Decodes one UTF-8 code point starting at text[i]; advances i. Invalid bytes count as one.
unsigned NextCodePoint(std::string_view text, size_t* i) {
  unsigned char c = static_cast<unsigned char>(text[*i]);
  int length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (*i + length > text.size()) length = 1;
  unsigned cp = length == 1 ? c : c & (0xFF >> (length + 1));
  for (int k = 1; k < length; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[*i + k]) & 0x3F);
  *i += length;
  return cp;
}

bool IsWide(unsigned cp) {
  return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) || (cp >= 0xAC00 && cp <= 0xD7A3) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
         (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
}

std::string Pad(const std::string& text, int width, Align align) {
  int missing = std::max(0, width - DisplayWidth(text));
  std::string spaces(static_cast<size_t>(missing), ' ');
  return align == Align::kLeft ? text + spaces : spaces + text;
}

}  // namespace

int DisplayWidth(std::string_view utf8) {
  int width = 0;
  size_t i = 0;
  while (i < utf8.size()) {
    unsigned cp = NextCodePoint(utf8, &i);
    if (cp >= 0x300 && cp <= 0x36F) continue;  // combining marks take no column
    width += IsWide(cp) ? 2 : 1;
  }
  return width;
}

TextTable::TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {
  align_.assign(headers_.size(), Align::kLeft);
}

void TextTable::SetAlign(size_t column, Align align) {
  if (column >= align_.size()) align_.resize(column + 1, Align::kLeft);
  align_[column] = align;
}

void TextTable::AddRow(std::vector<std::string> cells) { rows_.push_back({false, std::move(cells)}); }

void TextTable::AddSection(std::string title) { rows_.push_back({true, {std::move(title)}}); }

std::string TextTable::Render(int indent) const {
  size_t columns = headers_.size();
  for (const auto& row : rows_) {
    if (!row.section) columns = std::max(columns, row.cells.size());
  }
  std::vector<int> widths(columns, 0);
  for (size_t c = 0; c < headers_.size(); ++c) widths[c] = DisplayWidth(headers_[c]);
  for (const auto& row : rows_) {
    if (row.section) continue;
    for (size_t c = 0; c < row.cells.size(); ++c) widths[c] = std::max(widths[c], DisplayWidth(row.cells[c]));
  }
  std::string prefix(static_cast<size_t>(indent), ' ');
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line = prefix;
    for (size_t c = 0; c < columns; ++c) {
      std::string cell = c < cells.size() ? cells[c] : "";
      Align align = c < align_.size() ? align_[c] : Align::kLeft;
      bool last = c + 1 == columns;
      line += last && align == Align::kLeft ? cell : Pad(cell, widths[c], align);
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  if (!headers_.empty()) {
    emit(headers_);
    std::vector<std::string> rule;
    for (int w : widths) rule.push_back(std::string(static_cast<size_t>(w), '-'));
    emit(rule);
  }
  for (const auto& row : rows_) {
    if (row.section) {
      out += prefix + row.cells.front() + "\n";
    } else {
      emit(row.cells);
    }
  }
  return out;
}

}  // namespace gpuprobe::report
