// One shard's header by two HTTP range requests (hub_fetch.h: ParseContentRange,
// FetchShardHeader): every way an answer can differ from "206, exactly the bytes asked for"
// is refused here, before a byte of it is saved.
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "hub/fetch_helpers.h"
#include "hub/hub_fetch.h"
#include "hub/hub_names.h"
#include "model/safetensors_header.h"

namespace gpuprobe::hub {
namespace {

using core::Result;
using core::Status;
using detail::CountedGet;
using detail::HubHeader;
using detail::IsAbsentFile;

Status Truncated(const std::string& url, std::uint64_t at, const ByteRange& range) {
  return Malformed(fmt::format("{}: the answer stops at byte {}; bytes {}-{} were asked for (a truncated file?)", url,
                               at, range.first, range.last),
                   "error.hub.truncated",
                   {{"url", url}, {"at", std::to_string(at)}, {"first", std::to_string(range.first)},
                    {"last", std::to_string(range.last)}});
}

Status RangeIgnored(const std::string& url, const ByteRange& range, std::uint64_t limit) {
  return Status::ParseError(
             fmt::format("{}: the server ignored the range request (HTTP 200 instead of 206 for bytes {}-{}) and sent "
                         "more than the {} bytes asked for; the transfer was cut off",
                         url, range.first, range.last, limit),
             "gpuprobe reads only the headers of weight files; use an endpoint that serves byte ranges (the Hub "
             "and its mirrors do)")
      .WithKeys("error.hub.range_ignored",
                {{"url", url}, {"first", std::to_string(range.first)}, {"last", std::to_string(range.last)},
                 {"limit", std::to_string(limit)}},
                "error.hub.range_ignored.hint");
}

Status RangeOverrun(const std::string& url, const ByteRange& range) {
  return Malformed(fmt::format("{}: asked for bytes {}-{}, the server sent more; the transfer was cut off", url,
                               range.first, range.last),
                   "error.hub.range_overrun",
                   {{"url", url}, {"first", std::to_string(range.first)}, {"last", std::to_string(range.last)}});
}

Status WrongRange(const std::string& url, const ByteRange& range, const std::string& content_range) {
  const std::string shown = content_range.substr(0, 100);
  return Malformed(fmt::format("{}: asked for bytes {}-{}, the server sent '{}'", url, range.first, range.last, shown),
                   "error.hub.wrong_range",
                   {{"url", url}, {"first", std::to_string(range.first)}, {"last", std::to_string(range.last)},
                    {"content_range", shown}});
}

Status FileTooShort(const std::string& url, std::uint64_t size) {
  return Malformed(fmt::format("{}: the file is {} bytes long, too short for a safetensors file", url, size),
                   "error.hub.file_too_short", {{"url", url}, {"size", std::to_string(size)}});
}

std::uint64_t LittleEndian64(const std::string& bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  return n;
}

std::optional<std::uint64_t> ParseSize(const std::string& text) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::strtoull(text.c_str(), nullptr, 10);
}

}  // namespace

std::optional<ContentRange> ParseContentRange(const std::string& value) {
  if (value.size() < 7 || value.size() > 100) return std::nullopt;
  std::string unit = value.substr(0, 6);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit != "bytes ") return std::nullopt;
  const std::string rest = value.substr(6);
  const size_t slash = rest.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const std::string span = rest.substr(0, slash);
  const std::string total = rest.substr(slash + 1);
  ContentRange out;
  if (total != "*") {
    out.total = ParseSize(total);
    if (!out.total) return std::nullopt;
  }
  if (span == "*") {
    if (!out.total) return std::nullopt;
    out.unsatisfied = true;
    return out;
  }
  const size_t dash = span.find('-');
  if (dash == std::string::npos) return std::nullopt;
  auto first = ParseSize(span.substr(0, dash));
  auto last = ParseSize(span.substr(dash + 1));
  if (!first || !last || *first > *last || (out.total && *last >= *out.total)) return std::nullopt;
  out.first = *first;
  out.last = *last;
  return out;
}

Result<std::optional<SavedHeader>> FetchShardHeader(HttpClient& client, const FileRef& ref, const HubEnv& env,
                                                    const FetchOptions& options, FetchStats* stats,
                                                    bool allow_absent) {
  // Bytes 0-7: the header's length, little-endian.
  const ByteRange length_range{0, 7};
  HttpRequest request;
  request.url = ref.url;
  request.bearer_token = env.token;
  request.range = length_range;
  request.max_body_bytes = 8;
  HttpResponse r;
  GPUPROBE_ASSIGN_OR_RETURN(r, CountedGet(client, request, stats));
  if (allow_absent && IsAbsentFile(r)) return std::optional<SavedHeader>();
  const std::string content_range = r.headers.Get("content-range").value_or("");
  const auto range = ParseContentRange(content_range);
  std::optional<std::uint64_t> total;
  if (r.status == 416) return FileTooShort(ref.url, range && range->total ? *range->total : 0);
  if (r.status == 200) {
    // Without Range support the whole file comes: more than 8 bytes is cut off and refused;
    // 8 bytes or fewer is the whole file.
    if (r.body_over_limit) return RangeIgnored(ref.url, length_range, 8);
    if (r.body.size() < 8) return FileTooShort(ref.url, r.body.size());
    total = 8;
  } else if (r.status != 206) {
    return StatusFromHttp(ref, r, env);
  } else {
    if (r.body_over_limit) return RangeOverrun(ref.url, length_range);
    if (range && range->total && *range->total < 8) return FileTooShort(ref.url, *range->total);
    if (r.body.size() < 8 || r.body_incomplete) return Truncated(ref.url, r.body.size(), length_range);
    if (!content_range.empty() && (!range || range->first != 0 || range->last != 7)) {
      return WrongRange(ref.url, length_range, content_range);
    }
    if (range && range->total) {
      total = range->total;
    } else if (auto linked = HubHeader(r, "x-linked-size")) {
      total = ParseSize(*linked);
    }
  }

  const std::uint64_t n = LittleEndian64(r.body);
  const std::string length_text = std::to_string(n);
  if (n > options.max_header_bytes) {
    return Status::ParseError(fmt::format("{}: bytes 0-7 give a header length of {} bytes, beyond the {}-byte limit "
                                          "(not a safetensors file?)",
                                          ref.url, n, options.max_header_bytes))
        .WithKeys("error.hub.header_length",
                  {{"url", ref.url}, {"length", length_text}, {"limit", std::to_string(options.max_header_bytes)}});
  }
  if (n < 2) {
    return Malformed(fmt::format("{}: bytes 0-7 give a header length of {} bytes, too short for a JSON header", ref.url, n),
                     "error.hub.header_too_short", {{"url", ref.url}, {"length", length_text}});
  }
  if (!total) {
    return Malformed(fmt::format("{}: the server did not say how large the file is (no Content-Range total)", ref.url),
                     "error.hub.no_size", {{"url", ref.url}});
  }
  if (8 + n > *total) {
    return Malformed(fmt::format("{}: bytes 0-7 give a header length of {} bytes, past the end of the {}-byte file",
                                 ref.url, n, *total),
                     "error.hub.header_past_end",
                     {{"url", ref.url}, {"length", length_text}, {"size", std::to_string(*total)}});
  }

  // Bytes 8..8+N-1: the JSON header, and nothing of the weights after it.
  const ByteRange header_range{8, 8 + n - 1};
  request.range = header_range;
  request.max_body_bytes = n;
  HttpResponse h;
  GPUPROBE_ASSIGN_OR_RETURN(h, CountedGet(client, request, stats));
  if (h.status == 200) return RangeIgnored(ref.url, header_range, n);
  if (h.status != 206) return StatusFromHttp(ref, h, env);
  if (h.body_over_limit) return RangeOverrun(ref.url, header_range);
  const std::string header_content_range = h.headers.Get("content-range").value_or("");
  const auto got = ParseContentRange(header_content_range);
  if (!header_content_range.empty() && (!got || got->first != 8)) {
    return WrongRange(ref.url, header_range, header_content_range);
  }
  if (h.body_incomplete || h.body.size() < n) return Truncated(ref.url, 8 + h.body.size(), header_range);

  auto parsed = model::ParseSafetensorsHeader(h.body, *total - 8 - n, ref.url);
  if (!parsed.ok()) {
    // A malformed answer (a parse error, exit 2) in the header reader's own words, which name
    // the URL and the tensor in every language.
    return core::Status::ParseError(parsed.status().message())
        .WithKeys(parsed.status().message_key(), parsed.status().message_args());
  }
  SavedHeader saved;
  saved.file = ref.file;
  saved.url = ref.url;
  for (auto value : {r.first_headers.Get("x-linked-etag"), r.first_headers.Get("etag")}) {
    if (value && saved.etag.empty()) saved.etag = NormalizeEtag(*value).substr(0, 200);
  }
  saved.file_size_bytes = *total;
  saved.header = std::move(h.body);
  return std::optional<SavedHeader>(std::move(saved));
}

}  // namespace gpuprobe::hub
