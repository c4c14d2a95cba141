#include "hub/hub_errors.h"

#include <fmt/format.h>

namespace gpuprobe::hub {
namespace {

using core::Status;

const char* ReasonKey(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::kResolve: return "error.hub.reason.resolve";
    case TransportFailure::kConnect: return "error.hub.reason.connect";
    case TransportFailure::kDropped: return "error.hub.reason.dropped";
    case TransportFailure::kTimeout: return "error.hub.reason.timeout";
    case TransportFailure::kTls: return "error.hub.reason.tls";
    case TransportFailure::kTooManyRedirects: return "error.hub.reason.redirects";
    case TransportFailure::kProtocol: return "error.hub.reason.protocol";
    case TransportFailure::kOther: break;
  }
  return "error.hub.reason.other";
}

const char* ReasonEnglish(TransportFailure failure) {
  switch (failure) {
    case TransportFailure::kResolve: return "the host name could not be resolved (DNS)";
    case TransportFailure::kConnect: return "no connection could be made";
    case TransportFailure::kDropped: return "the connection broke off before a complete answer";
    case TransportFailure::kTimeout: return "no complete answer before the timeout";
    case TransportFailure::kTls: return "the TLS handshake or certificate check failed";
    case TransportFailure::kTooManyRedirects: return "too many redirects";
    case TransportFailure::kProtocol: return "redirected to a scheme other than http or https";
    case TransportFailure::kOther: break;
  }
  return "a network error";
}

// Whether and which token went out, as a sentence the messages embed ({token_note}).
std::pair<std::string, std::string> TokenNote(const HubEnv& env) {
  if (!env.token.empty()) {
    if (env.token_source == TokenSource::kTokenFile) {
      return {"error.hub.token_note.sent_file", fmt::format("the token from {} was sent and refused", env.token_path)};
    }
    return {"error.hub.token_note.sent_env",
            fmt::format("the token from {} was sent and refused", TokenSourceName(env.token_source))};
  }
  if (env.implicit_token_disabled && env.token_source != TokenSource::kNone) {
    return {"error.hub.token_note.disabled", "no token was sent (HF_HUB_DISABLE_IMPLICIT_TOKEN is set)"};
  }
  return {"error.hub.token_note.none", "no token was sent (HF_TOKEN is not set)"};
}

}  // namespace

Status Unreachable(const std::string& url, TransportFailure failure, const std::string& detail) {
  // The library's own words stay in brackets (in every language: they name the exact cause).
  const std::string shown = detail.empty() ? std::string("no detail") : detail;
  std::string english = fmt::format("cannot reach {}: {} ({})", url, ReasonEnglish(failure), shown);
  return Status::Unavailable(english,
                             "check the network and HF_ENDPOINT (the Hub or a mirror); with HF_HUB_OFFLINE=1 "
                             "gpuprobe uses only the local Hub cache")
      .WithKeys("error.hub.unreachable", {{"url", url}, {"reason_key", ReasonKey(failure)}, {"detail", shown}},
                "error.hub.unreachable.hint");
}

Status Malformed(const std::string& english, const std::string& key, core::MessageArgs args) {
  return Status::ParseError(english).WithKeys(key, std::move(args));
}

Status StatusFromHttp(const FileRef& ref, const HttpResponse& response, const HubEnv& env) {
  std::string code = response.headers.Get("x-error-code").value_or("");
  if (code.empty()) code = response.first_headers.Get("x-error-code").value_or("");
  const long status = response.status;
  const std::string status_text = std::to_string(status);
  core::MessageArgs args = {{"url", ref.url},       {"status", status_text},  {"repo", ref.repo_id},
                            {"file", ref.file},     {"revision", ref.revision}, {"endpoint", env.endpoint}};
  auto [note_key, note] = TokenNote(env);
  args.emplace_back("token_note_key", note_key);
  args.emplace_back("token_path", env.token_path);
  args.emplace_back("token_variable", TokenSourceName(env.token_source));

  if (code == "RevisionNotFound") {
    return Status::InvalidArgument(
               fmt::format("{}: HTTP {}: {} has no revision '{}'", ref.url, status, ref.repo_id, ref.revision),
               "give a branch, tag or commit the repository has (default: main)")
        .WithKeys("error.hub.revision_not_found", args, "error.hub.revision_not_found.hint");
  }
  if (code == "EntryNotFound") {
    return Status::InvalidArgument(fmt::format("{}: HTTP {}: {} has no file {} at revision {}", ref.url, status,
                                               ref.repo_id, ref.file, ref.revision))
        .WithKeys("error.hub.file_not_found", args);
  }
  if (code == "GatedRepo" || ((status == 401 || status == 403) && code != "RepoNotFound")) {
    return Status::InvalidArgument(
               fmt::format("{}: HTTP {}: {} is gated or private; {}", ref.url, status, ref.repo_id, note),
               "accept the model's terms on its Hub page, then set HF_TOKEN to an access token of that account "
               "(huggingface.co/settings/tokens)")
        .WithKeys("error.hub.gated", args, "error.hub.gated.hint");
  }
  if (code == "RepoNotFound") {
    // The Hub answers 401 RepoNotFound for a repository it does not show this caller:
    // absent, or private without a token that can read it.
    return Status::InvalidArgument(fmt::format("{}: HTTP {}: no model repository '{}' at {} ({})", ref.url, status,
                                               ref.repo_id, env.endpoint, note),
                                   "check the id (ORG/NAME as on the model's Hub page); a private repository also "
                                   "needs HF_TOKEN")
        .WithKeys("error.hub.repo_not_found", args, "error.hub.repo_not_found.hint");
  }
  if (status == 404 || status == 410) {
    return Status::InvalidArgument(fmt::format("{}: HTTP {}: no such repository, revision or file ({} at {}, {})",
                                               ref.url, status, ref.repo_id, ref.revision, ref.file),
                                   "check the id (ORG/NAME as on the model's Hub page) and HF_ENDPOINT")
        .WithKeys("error.hub.not_found", args, "error.hub.not_found.hint");
  }
  if (status == 429 || status >= 500) {
    return Status::Unavailable(fmt::format("{}: the server answered HTTP {}", ref.url, status),
                               "the Hub or the mirror is failing or limiting requests; try again later, or set "
                               "HF_HUB_OFFLINE=1 to use the local Hub cache")
        .WithKeys("error.hub.http_status", args, "error.hub.http_status.hint");
  }
  return Status::ParseError(fmt::format("{}: unexpected answer HTTP {} for {}", ref.url, status, ref.file))
      .WithKeys("error.hub.unexpected_status", args);
}

}  // namespace gpuprobe::hub
