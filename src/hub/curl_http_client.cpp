#include "hub/curl_http_client.h"

#include <curl/curl.h>

#include <mutex>

#include <fmt/format.h>

#include "core/version.h"

namespace gpuprobe::hub {
namespace {

using core::Result;
using core::Status;

// What the callbacks of one transfer fill in.
struct Transfer {
  HttpResponse* response = nullptr;
  std::uint64_t max_body_bytes = 0;
  int header_blocks = 0;  // one per response received: the 302s, then the final answer
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  t->response->bytes_received += n;
  std::string_view line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.rfind("HTTP/", 0) == 0) {
    // A new response starts: the headers seen so far belonged to a redirect.
    ++t->header_blocks;
    t->response->headers = HttpHeaders();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return n;
  t->response->headers.Set(line.substr(0, colon), line.substr(colon + 1));
  if (t->header_blocks == 1) t->response->first_headers.Set(line.substr(0, colon), line.substr(colon + 1));
  return n;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  HttpResponse& r = *t->response;
  r.bytes_received += n;
  if (r.body.size() + n > t->max_body_bytes) {
    // Keep what fits and stop the transfer: returning less than n makes libcurl abort it.
    r.body.append(data, static_cast<size_t>(t->max_body_bytes - r.body.size()));
    r.body_over_limit = true;
    return 0;
  }
  r.body.append(data, n);
  return n;
}

class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient(CURL* handle, CurlClientOptions options) : handle_(handle), options_(std::move(options)) {}
  ~CurlHttpClient() override { curl_easy_cleanup(handle_); }
  CurlHttpClient(const CurlHttpClient&) = delete;
  CurlHttpClient& operator=(const CurlHttpClient&) = delete;

  Result<HttpResponse> Get(const HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mutex_);
    // reset clears the options and keeps the open connections and the DNS cache.
    curl_easy_reset(handle_);
    HttpResponse response;
    Transfer transfer{&response, request.max_body_bytes, 0};
    char error[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    if (!request.bearer_token.empty()) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + request.bearer_token).c_str());
    }
    const std::string range =
        request.range ? fmt::format("{}-{}", request.range->first, request.range->last) : std::string();
    const std::string agent =
        options_.user_agent.empty() ? fmt::format("gpuprobe/{}", core::kVersion) : options_.user_agent;

    CURL* h = handle_;
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, options_.max_redirects);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, options_.total_timeout_ms);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (!options_.ca_bundle.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.ca_bundle.c_str());
    curl_easy_setopt(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);  // a proxy's CONNECT answer is not the Hub's
    curl_easy_setopt(h, CURLOPT_USERAGENT, agent.c_str());
    if (headers != nullptr) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (!range.empty()) curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());
    // No CURLOPT_MAXFILESIZE: libcurl would apply it to the body of a 302 too. The write
    // callback stops the transfer at the cap instead, after at most one network read.
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &transfer);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);

    const CURLcode code = curl_easy_perform(h);
    curl_slist_free_all(headers);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);

    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (code == CURLE_WRITE_ERROR && response.body_over_limit) {
      // Cut off at the cap: a response, marked so.
    } else if (code == CURLE_PARTIAL_FILE) {
      response.body_incomplete = true;
    } else if (code != CURLE_OK) {
      std::string detail = error[0] != '\0' ? std::string(error) : std::string(curl_easy_strerror(code));
      return Unreachable(request.url, ClassifyCurlCode(static_cast<int>(code)), detail);
    }
    response.status = status;
    char* effective = nullptr;
    if (curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK && effective != nullptr) {
      response.final_url = effective;
    }
    long redirects = 0;
    curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
    response.redirects = static_cast<int>(redirects);
    return response;
  }

 private:
  std::mutex mutex_;
  CURL* handle_;
  CurlClientOptions options_;
};

}  // namespace

TransportFailure ClassifyCurlCode(int curl_code) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportFailure::kResolve;
    case CURLE_COULDNT_CONNECT:
      return TransportFailure::kConnect;
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
      return TransportFailure::kDropped;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportFailure::kTimeout;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return TransportFailure::kTls;
    case CURLE_TOO_MANY_REDIRECTS:
      return TransportFailure::kTooManyRedirects;
    case CURLE_UNSUPPORTED_PROTOCOL:
      return TransportFailure::kProtocol;
    default:
      break;
  }
  return TransportFailure::kOther;
}

Result<std::unique_ptr<HttpClient>> MakeCurlHttpClient(const CurlClientOptions& options) {
  static std::once_flag once;
  static CURLcode global = CURLE_OK;
  std::call_once(once, [] { global = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (global != CURLE_OK) {
    return Status::Internal(fmt::format("libcurl could not be initialised: {}", curl_easy_strerror(global)))
        .WithKeys("error.curl.init", {{"detail", curl_easy_strerror(global)}});
  }
  CURL* handle = curl_easy_init();
  if (handle == nullptr) return Status::Internal("libcurl could not create a transfer handle").WithKeys("error.curl.handle");
  return std::unique_ptr<HttpClient>(new CurlHttpClient(handle, options));
}

}  // namespace gpuprobe::hub
