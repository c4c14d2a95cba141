#include "serve/http_request.h"

#include <cctype>

#include <fmt/format.h>

#include "core/strings.h"

namespace gpuprobe::serve {
namespace {

using core::Lower;

// Optional white space as HTTP defines it (RFC 9110 5.6.3): spaces and tabs only.
std::string_view TrimOws(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

HttpParse Error(int status) {
  HttpParse p;
  p.state = HttpParse::State::kError;
  p.error_status = status;
  return p;
}

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

}  // namespace

HttpParse ParseHttpRequest(std::string_view input, const HttpLimits& limits) {
  // Clients may send empty lines between requests (RFC 9112 2.2): skip them.
  size_t start = 0;
  while (start + 1 < input.size() && input[start] == '\r' && input[start + 1] == '\n') start += 2;
  std::string_view rest = input.substr(start);
  size_t end = rest.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (rest.size() > limits.max_head_bytes) return Error(431);
    // A request line longer than the whole head may be is a URI too long.
    if (rest.find("\r\n") == std::string_view::npos && rest.size() > limits.max_head_bytes / 2) return Error(414);
    return HttpParse{};
  }
  if (end + 4 > limits.max_head_bytes) return Error(431);
  std::string_view head = rest.substr(0, end);
  size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? std::string_view::npos : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) return Error(400);
  HttpParse p;
  HttpRequest& r = p.request;
  r.method = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  r.version = std::string(line.substr(sp2 + 1));
  if (r.method.empty() || target.empty()) return Error(400);
  for (char c : r.method) {
    if (!IsTokenChar(c)) return Error(400);
  }
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7F) return Error(400);
  }
  if (r.version != "HTTP/1.1" && r.version != "HTTP/1.0") return r.version.rfind("HTTP/", 0) == 0 ? Error(505) : Error(400);
  r.target = std::string(target.substr(0, target.find('?')));
  r.keep_alive = r.version == "HTTP/1.1";
  std::string_view headers = line_end == std::string_view::npos ? std::string_view() : head.substr(line_end + 2);
  while (!headers.empty()) {
    size_t next = headers.find("\r\n");
    std::string_view h = headers.substr(0, next);
    headers = next == std::string_view::npos ? std::string_view() : headers.substr(next + 2);
    if (h.empty()) continue;
    if (h.front() == ' ' || h.front() == '\t') return Error(400);  // obsolete line folding
    size_t colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0) return Error(400);
    for (char c : h.substr(0, colon)) {
      if (!IsTokenChar(c)) return Error(400);
    }
    if (r.headers.size() >= limits.max_headers) return Error(431);
    r.headers.emplace_back(Lower(h.substr(0, colon)), std::string(TrimOws(h.substr(colon + 1))));
  }
  for (const auto& [name, value] : r.headers) {
    if (name == "connection") {
      std::string v = Lower(value);
      if (v.find("close") != std::string::npos) r.keep_alive = false;
      if (v.find("keep-alive") != std::string::npos) r.keep_alive = true;
    } else if (name == "transfer-encoding") {
      return Error(501);  // no request here has a body
    } else if (name == "content-length" && TrimOws(value) != "0") {
      return Error(413);
    }
  }
  if (r.method != "GET" && r.method != "HEAD") return Error(405);
  p.state = HttpParse::State::kComplete;
  p.consumed = start + end + 4;
  return p;
}

const char* HttpReason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
  }
  return "Error";
}

std::string HttpResponse(int status, std::string_view content_type, std::string_view body, bool keep_alive, bool head_only,
                         const std::vector<std::string>& extra_headers) {
  std::string out = fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: {}\r\n", status,
                                HttpReason(status), content_type, body.size(), keep_alive ? "keep-alive" : "close");
  for (const auto& h : extra_headers) out += h + "\r\n";
  out += "\r\n";
  if (!head_only) out.append(body);
  return out;
}

}  // namespace gpuprobe::serve
