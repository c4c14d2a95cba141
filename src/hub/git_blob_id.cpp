#include "hub/git_blob_id.h"

#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace gpuprobe::hub {
namespace {

std::uint32_t Rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

void Block(std::array<std::uint32_t, 5>& h, const unsigned char* p) {
  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) | (std::uint32_t{p[4 * i + 2]} << 8) |
           std::uint32_t{p[4 * i + 3]};
  }
  for (int i = 16; i < 80; ++i) w[i] = Rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 80; ++i) {
    std::uint32_t f = 0, k = 0;
    if (i < 20) {
      f = (b & c) | (~b & d);
      k = 0x5A827999;
    } else if (i < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1;
    } else if (i < 60) {
      f = (b & c) | (b & d) | (c & d);
      k = 0x8F1BBCDC;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6;
    }
    std::uint32_t t = Rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = Rotl(b, 30);
    b = a;
    a = t;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

}  // namespace

std::string Sha1Hex(std::string_view data) {
  std::array<std::uint32_t, 5> h = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  size_t full = data.size() / 64;
  for (size_t i = 0; i < full; ++i) Block(h, bytes + 64 * i);
  // The tail, the 0x80 marker and the length in bits, in one or two final blocks.
  unsigned char tail[128] = {};
  size_t rest = data.size() - 64 * full;
  for (size_t i = 0; i < rest; ++i) tail[i] = bytes[64 * full + i];
  tail[rest] = 0x80;
  size_t blocks = rest + 1 + 8 <= 64 ? 1 : 2;
  std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[64 * blocks - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  for (size_t i = 0; i < blocks; ++i) Block(h, tail + 64 * i);
  std::string out;
  for (std::uint32_t word : h) out += fmt::format("{:08x}", word);
  return out;
}

std::string GitBlobId(std::string_view content) {
  std::string object = fmt::format("blob {}", content.size());
  object += '\0';
  object.append(content.data(), content.size());
  return Sha1Hex(object);
}

}  // namespace gpuprobe::hub
