// The git object id of a file's content (SHA-1 of "blob <size>\0" + content): what the Hub
// sends as the ETag of a file kept in git (config.json, the safetensors index), and so the
// name the Hub cache gives its blob. Used where a server sent no ETag.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace gpuprobe::hub {

/// 40 lower-case hex digits of SHA-1(`data`) (FIPS 180-4).
std::string Sha1Hex(std::string_view data);

/// Sha1Hex("blob " + size + '\0' + content): `git hash-object` of the content.
std::string GitBlobId(std::string_view content);

}  // namespace gpuprobe::hub
