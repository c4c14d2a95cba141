#include "model/hf_expression.h"

#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace gpuprobe::model {
namespace {

using core::Result;
using core::Status;
using nlohmann::json;

// Past this, a product of config values is a corrupted file, not a model (kMaxParams is 1e15).
constexpr std::int64_t kLimit = std::int64_t{1} << 62;

struct Token {
  enum class Kind { kInt, kIdent, kOp, kString, kEnd } kind = Kind::kEnd;
  std::string text;
  std::int64_t number = 0;
};

Result<std::vector<Token>> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(fmt::format("expression '{}': {}", s, why));
  };
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = 0;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        if (v > kLimit / 10) return bad("a number too large");
        v = v * 10 + (s[i] - '0');
        ++i;
      }
      t.kind = Token::Kind::kInt;
      t.number = v;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                              (s[i] == '.' && i + 1 < s.size() &&
                               (std::isalpha(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '_')))) {
        ++i;
      }
      t.kind = Token::Kind::kIdent;
      t.text = std::string(s.substr(start, i - start));
    } else if (c == '"') {
      size_t end = s.find('"', i + 1);
      if (end == std::string_view::npos) return bad("an unterminated string");
      t.kind = Token::Kind::kString;
      t.text = std::string(s.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      static constexpr std::string_view kTwo[] = {"//", "&&", "||", "==", "!="};
      t.kind = Token::Kind::kOp;
      for (std::string_view op : kTwo) {
        if (s.substr(i, 2) == op) t.text = std::string(op);
      }
      if (t.text.empty()) {
        if (std::string_view("-+*(),!").find(c) == std::string_view::npos) return bad(fmt::format("unexpected '{}'", c));
        t.text = std::string(1, c);
      }
      i += t.text.size();
    }
    out.push_back(std::move(t));
  }
  out.push_back(Token{});
  return out;
}

bool Truthy(const json* v) {
  if (v == nullptr || v->is_null()) return false;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_number()) return v->get<double>() != 0;
  if (v->is_string()) return !v->get_ref<const std::string&>().empty();
  if (v->is_array() || v->is_object()) return !v->empty();
  return true;
}

// Python's floor division.
std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens, const ConfigValues& values)
      : text_(text), tokens_(std::move(tokens)), values_(values) {}

  Result<std::int64_t> WholeExpr() {
    auto v = Expr();
    if (!v.ok()) return v;
    if (Peek().kind != Token::Kind::kEnd) return Bad("trailing text");
    return v;
  }

  Result<bool> WholeCondition() {
    auto v = Cond();
    if (!v.ok()) return v.status();
    if (Peek().kind != Token::Kind::kEnd) return Bad("trailing text");
    return Truthy(&*v);
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  bool IsOp(const char* op) const { return Peek().kind == Token::Kind::kOp && Peek().text == op; }
  Status Bad(const std::string& why) const {
    return Status::InvalidArgument(fmt::format("expression '{}': {}", text_, why));
  }
  Status Expect(const char* op) {
    if (!IsOp(op)) return Bad(fmt::format("expected '{}'", op));
    ++pos_;
    return Status::Ok();
  }
  Result<std::int64_t> Checked(long double v) const {
    if (std::fabs(v) > static_cast<long double>(kLimit)) return Bad("a value beyond any real model");
    return static_cast<std::int64_t>(v);
  }

  Result<std::int64_t> Expr() {
    std::int64_t v = 0;
    GPUPROBE_ASSIGN_OR_RETURN(v, Term());
    while (IsOp("+") || IsOp("-")) {
      bool plus = Peek().text == "+";
      ++pos_;
      std::int64_t r = 0;
      GPUPROBE_ASSIGN_OR_RETURN(r, Term());
      GPUPROBE_ASSIGN_OR_RETURN(v, Checked(plus ? static_cast<long double>(v) + r : static_cast<long double>(v) - r));
    }
    return v;
  }

  Result<std::int64_t> Term() {
    std::int64_t v = 0;
    GPUPROBE_ASSIGN_OR_RETURN(v, Unary());
    while (IsOp("*") || IsOp("//")) {
      bool times = Peek().text == "*";
      ++pos_;
      std::int64_t r = 0;
      GPUPROBE_ASSIGN_OR_RETURN(r, Unary());
      if (times) {
        GPUPROBE_ASSIGN_OR_RETURN(v, Checked(static_cast<long double>(v) * r));
      } else {
        if (r == 0) return Bad("division by zero");
        v = FloorDiv(v, r);
      }
    }
    return v;
  }

  Result<std::int64_t> Unary() {
    if (IsOp("-")) {
      ++pos_;
      std::int64_t v = 0;
      GPUPROBE_ASSIGN_OR_RETURN(v, Unary());
      return -v;
    }
    return Atom();
  }

  Result<std::int64_t> Atom() {
    Token t = Peek();
    ++pos_;
    if (t.kind == Token::Kind::kInt) return t.number;
    if (t.kind == Token::Kind::kOp && t.text == "(") {
      std::int64_t v = 0;
      GPUPROBE_ASSIGN_OR_RETURN(v, Expr());
      GPUPROBE_RETURN_IF_ERROR(Expect(")"));
      return v;
    }
    if (t.kind != Token::Kind::kIdent) return Bad("expected a number, a key or '('");
    if (t.text == "len" && IsOp("(")) {
      ++pos_;
      Token name = Peek();
      ++pos_;
      GPUPROBE_RETURN_IF_ERROR(Expect(")"));
      const json* v = name.kind == Token::Kind::kIdent ? values_.Find(name.text) : nullptr;
      if (v == nullptr || !(v->is_array() || v->is_string())) return Bad(fmt::format("len({}): not a list or string", name.text));
      return static_cast<std::int64_t>(v->is_string() ? v->get_ref<const std::string&>().size() : v->size());
    }
    if ((t.text == "ceil_div" || t.text == "min" || t.text == "max") && IsOp("(")) {
      ++pos_;
      std::int64_t a = 0;
      GPUPROBE_ASSIGN_OR_RETURN(a, Expr());
      GPUPROBE_RETURN_IF_ERROR(Expect(","));
      std::int64_t b = 0;
      GPUPROBE_ASSIGN_OR_RETURN(b, Expr());
      GPUPROBE_RETURN_IF_ERROR(Expect(")"));
      if (t.text == "min") return std::min(a, b);
      if (t.text == "max") return std::max(a, b);
      if (b == 0) return Bad("division by zero");
      return -FloorDiv(-a, b);
    }
    const json* v = values_.Find(t.text);
    if (v == nullptr || v->is_null()) return Bad(fmt::format("'{}' is not set", t.text));
    auto whole = WholeNumber(*v);
    if (!whole) return Bad(fmt::format("'{}' is not a whole number ({})", t.text, v->dump()));
    return *whole;
  }

  // Conditions evaluate to JSON values so that == compares like Python (same type).
  Result<json> Cond() {
    json v;
    GPUPROBE_ASSIGN_OR_RETURN(v, And());
    while (IsOp("||")) {
      ++pos_;
      json r;
      GPUPROBE_ASSIGN_OR_RETURN(r, And());
      v = Truthy(&v) || Truthy(&r);
    }
    return v;
  }
  Result<json> And() {
    json v;
    GPUPROBE_ASSIGN_OR_RETURN(v, Not());
    while (IsOp("&&")) {
      ++pos_;
      json r;
      GPUPROBE_ASSIGN_OR_RETURN(r, Not());
      v = Truthy(&v) && Truthy(&r);
    }
    return v;
  }
  Result<json> Not() {
    if (IsOp("!")) {
      ++pos_;
      json v;
      GPUPROBE_ASSIGN_OR_RETURN(v, Not());
      return json(!Truthy(&v));
    }
    return Compare();
  }
  Result<json> Compare() {
    json a;
    GPUPROBE_ASSIGN_OR_RETURN(a, Operand());
    if (IsOp("==") || IsOp("!=")) {
      bool eq_op = Peek().text == "==";
      ++pos_;
      json b;
      GPUPROBE_ASSIGN_OR_RETURN(b, Operand());
      bool same_kind = a.is_boolean() == b.is_boolean();
      bool eq = same_kind && (a.is_number() && b.is_number() ? a.get<double>() == b.get<double>() : a == b);
      return json(eq_op ? eq : !eq);
    }
    return a;
  }
  Result<json> Operand() {
    Token t = Peek();
    ++pos_;
    switch (t.kind) {
      case Token::Kind::kInt: return json(t.number);
      case Token::Kind::kString: return json(t.text);
      case Token::Kind::kIdent: {
        if (t.text == "true") return json(true);
        if (t.text == "false") return json(false);
        if (t.text == "null") return json(nullptr);
        const json* v = values_.Find(t.text);
        return v == nullptr ? json(nullptr) : *v;
      }
      case Token::Kind::kOp:
        if (t.text == "(") {
          json v;
          GPUPROBE_ASSIGN_OR_RETURN(v, Cond());
          GPUPROBE_RETURN_IF_ERROR(Expect(")"));
          return v;
        }
        break;
      case Token::Kind::kEnd: break;
    }
    return Bad("expected a value");
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  const ConfigValues& values_;
  size_t pos_ = 0;
};

}  // namespace

const json* ConfigValues::Find(std::string_view key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

bool ConfigValues::Has(std::string_view key) const {
  const json* v = Find(key);
  return v != nullptr && !v->is_null();
}

std::optional<std::int64_t> WholeNumber(const json& v) {
  if (v.is_boolean() || !v.is_number()) return std::nullopt;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kLimit)) return std::nullopt;
    return v.get<std::int64_t>();
  }
  double d = v.get<double>();
  if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 1e18) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

Result<std::int64_t> EvalIntExpression(std::string_view expression, const ConfigValues& values) {
  auto tokens = Tokenize(expression);
  if (!tokens.ok()) return tokens.status();
  return Parser(expression, std::move(tokens.value()), values).WholeExpr();
}

Result<bool> EvalCondition(std::string_view condition, const ConfigValues& values) {
  if (condition.find_first_not_of(" \t") == std::string_view::npos) return true;
  auto tokens = Tokenize(condition);
  if (!tokens.ok()) return tokens.status();
  return Parser(condition, std::move(tokens.value()), values).WholeCondition();
}

}  // namespace gpuprobe::model
