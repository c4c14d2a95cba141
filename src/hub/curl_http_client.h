// HttpClient on libcurl (Debian's libcurl4-openssl-dev): HTTPS with the certificate and host
// name verified, connect and total timeouts, redirects followed up to a limit (the Hub
// answers 302 to a CDN for weight files) and only to http/https, a cap on every body, no
// shell and no signals. Proxies come from the usual variables as libcurl reads them
// (http_proxy, https_proxy, HTTPS_PROXY, all_proxy, no_proxy; not HTTP_PROXY, which libcurl
// ignores on purpose). A bearer token is never sent to another host after a redirect
// (libcurl's own rule for an Authorization header), so the CDN never sees it.
//
// Thread safety: one client performs one request at a time (a mutex serialises Get); the
// connection is kept open between requests. Create one client per thread for parallel use.
#pragma once

#include <memory>
#include <string>

#include "hub/hub_errors.h"
#include "hub/http_client.h"

namespace gpuprobe::hub {

struct CurlClientOptions {
  long connect_timeout_ms = 10000;  ///< huggingface_hub's default request timeout is 10 s
  long total_timeout_ms = 60000;    ///< per request, redirects included
  long max_redirects = 5;
  std::string ca_bundle;   ///< a PEM file of CA certificates; empty: the system's
  std::string user_agent;  ///< empty: "gpuprobe/<version>"
};

/// A libcurl client. Internal when libcurl cannot be initialised (a broken installation).
core::Result<std::unique_ptr<HttpClient>> MakeCurlHttpClient(const CurlClientOptions& options = {});

/// The failure class of a libcurl error code (a CURLcode as an int, so this header stays
/// free of curl.h).
TransportFailure ClassifyCurlCode(int curl_code);

}  // namespace gpuprobe::hub
