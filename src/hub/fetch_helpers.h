// Small helpers the two halves of the fetch share (hub_fetch.cpp: the model, the caches;
// shard_header_fetch.cpp: one shard's header by two range requests). Internal to src/hub.
//
// Thread safety: pure functions, except CountedGet, which uses the client it is given.
#pragma once

#include <optional>
#include <string>

#include "core/status.h"
#include "hub/hub_snapshot.h"
#include "hub/http_client.h"

namespace gpuprobe::hub::detail {

/// client.Get(request), counted in `stats` (requests, and bytes when there was an answer).
inline core::Result<HttpResponse> CountedGet(HttpClient& client, const HttpRequest& request, FetchStats* stats) {
  auto response = client.Get(request);
  ++stats->requests;
  if (response.ok()) stats->bytes_received += response->bytes_received;
  return response;
}

/// The Hub's X-Error-Code, from the final answer or the first hop; empty when absent.
inline std::string ErrorCode(const HttpResponse& r) {
  auto code = r.headers.Get("x-error-code");
  if (!code) code = r.first_headers.Get("x-error-code");
  return code.value_or("");
}

/// True for a 404 that says the file is absent (not the repository or the revision).
inline bool IsAbsentFile(const HttpResponse& r) {
  const std::string code = ErrorCode(r);
  return (r.status == 404 || r.status == 410) && (code.empty() || code == "EntryNotFound");
}

/// A header of the Hub's own answer (the first hop, before a redirect to a CDN), else of the
/// final one; nullopt when absent or empty.
inline std::optional<std::string> HubHeader(const HttpResponse& r, const char* name) {
  auto value = r.first_headers.Get(name);
  if (!value || value->empty()) value = r.headers.Get(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

}  // namespace gpuprobe::hub::detail
