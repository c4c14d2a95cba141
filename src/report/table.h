// A plain-text table for the terminal: columns padded by display width (CJK characters
// count two columns), optional section rows, no colour. Views build one and print it.
//
// Thread safety: not thread-safe; build and render on one thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuprobe::report {

/// Columns a UTF-8 string occupies in a terminal (East Asian wide characters count 2).
int DisplayWidth(std::string_view utf8);

enum class Align { kLeft, kRight };

class TextTable {
 public:
  /// `headers` may be empty for a table without a header row.
  explicit TextTable(std::vector<std::string> headers = {});
  void SetAlign(size_t column, Align align);
  void AddRow(std::vector<std::string> cells);
  /// A full-width line inside the table (a group title).
  void AddSection(std::string title);
  /// Renders with two spaces between columns and `indent` spaces before each line.
  std::string Render(int indent = 0) const;

 private:
  struct Row {
    bool section = false;
    std::vector<std::string> cells;
  };
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<Row> rows_;
};

}  // namespace gpuprobe::report
