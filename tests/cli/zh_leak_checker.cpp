#include "cli/zh_leak_checker.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace gpuprobe::testing {
namespace {

bool IsAsciiLetter(unsigned char c) { return std::isalpha(c) != 0 && c < 0x80; }

// Blanks out quoted spans of one line: `...`, '...', "..." (ASCII quotes, closed on the line).
// An apostrophe inside a word (don't) is not a quote: a quote opens only after a space, a
// bracket or a non-ASCII character, or at the start.
std::string BlankQuoted(const std::string& line) {
  std::string out = line;
  size_t i = 0;
  while (i < out.size()) {
    char q = out[i];
    bool opener = q == '`' || q == '"' ||
                  (q == '\'' && (i == 0 || !IsAsciiLetter(static_cast<unsigned char>(out[i - 1]))));
    if (opener) {
      size_t close = out.find(q, i + 1);
      // A single quote closes only before a non-letter: the one in "couldn't" does not.
      while (q == '\'' && close != std::string::npos && close + 1 < out.size() &&
             IsAsciiLetter(static_cast<unsigned char>(out[close + 1]))) {
        close = out.find(q, close + 1);
      }
      if (close != std::string::npos) {
        for (size_t k = i; k <= close; ++k) out[k] = ' ';
        i = close + 1;
        continue;
      }
    }
    ++i;
  }
  return out;
}

// Splits a line into chunks at ASCII spaces and at every non-ASCII character (CJK text and
// full-width punctuation delimit English words in Chinese sentences).
std::vector<std::string> Chunks(const std::string& line) {
  std::vector<std::string> chunks;
  std::string current;
  for (char ch : line) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c >= 0x80) {
      if (!current.empty()) chunks.push_back(current);
      current.clear();
    } else {
      current.push_back(ch);
    }
  }
  if (!current.empty()) chunks.push_back(current);
  return chunks;
}

std::string TrimPunctuation(const std::string& chunk) {
  const std::string edge = ",;:.!?()\"'`";
  size_t begin = 0, end = chunk.size();
  while (begin < end && edge.find(chunk[begin]) != std::string::npos) ++begin;
  while (end > begin && edge.find(chunk[end - 1]) != std::string::npos) --end;
  return chunk.substr(begin, end - begin);
}

bool IsTechnicalChunk(const std::string& raw) {
  std::string chunk = TrimPunctuation(raw);
  if (chunk.empty()) return true;
  if (chunk[0] == '-') return true;  // a flag, or a negative number
  for (size_t i = 0; i < chunk.size(); ++i) {
    char c = chunk[i];
    if (std::isdigit(static_cast<unsigned char>(c))) return true;
    if (std::string("/\\_=@${}[]<>|~#").find(c) != std::string::npos) return true;
    bool inner = i > 0 && i + 1 < chunk.size();
    if (inner && (c == '.' || c == ':')) return true;
    // camelCase: an identifier or a product's own spelling (cudaGetLastError, xFormers).
    if (i > 0 && std::islower(static_cast<unsigned char>(chunk[i - 1])) && std::isupper(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

}  // namespace

std::set<std::string> ReadAllowlist(const std::string& path) {
  std::set<std::string> words;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string word;
    while (fields >> word) {
      for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      words.insert(word);
    }
  }
  return words;
}

std::vector<Leak> FindLeaks(const std::string& text, const std::set<std::string>& allowlist) {
  std::vector<Leak> leaks;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    // U+27E6, the catalogue's missing-text marker.
    if (line.find("\xE2\x9F\xA6") != std::string::npos) leaks.push_back({number, "missing text", line});
    // A shell command line ("    $ dmesg -T | grep Xid") is code; only a note in Chinese after
    // the command is checked.
    std::string checked = line;
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 2, "$ ") == 0) {
      size_t note = first;
      while (note < line.size() && static_cast<unsigned char>(line[note]) < 0x80) ++note;
      checked = line.substr(note);
    }
    for (const std::string& chunk : Chunks(BlankQuoted(checked))) {
      if (IsTechnicalChunk(chunk)) continue;
      // A hyphenated name on the allowlist as a whole (nvidia-smi, llm-serving).
      std::string whole = TrimPunctuation(chunk);
      for (char& c : whole) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (allowlist.count(whole) != 0) continue;
      for (size_t i = 0; i < chunk.size();) {
        if (!IsAsciiLetter(static_cast<unsigned char>(chunk[i]))) {
          ++i;
          continue;
        }
        size_t end = i;
        while (end < chunk.size() && IsAsciiLetter(static_cast<unsigned char>(chunk[end]))) ++end;
        std::string word = chunk.substr(i, end - i);
        std::string lower = word;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (word.size() >= 2 && allowlist.count(lower) == 0) leaks.push_back({number, word, line});
        i = end;
      }
    }
  }
  return leaks;
}

std::string DescribeLeaks(const std::vector<Leak>& leaks) {
  std::string out;
  for (const Leak& leak : leaks) {
    out += "line " + std::to_string(leak.line) + ": '" + leak.word + "' in: " + leak.context + "\n";
  }
  return out;
}

}  // namespace gpuprobe::testing
