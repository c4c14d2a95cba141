#include "core/status.h"

#include <cerrno>

#include <gtest/gtest.h>

namespace gpuprobe::core {
namespace {

TEST(Status, DefaultIsOk) {
  Status status;
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(status.ToString(), "ok");
}

TEST(Status, CarriesCodeMessageAndHint) {
  Status status = Status::InvalidArgument("bad size", "use 7B");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.ToString(), "bad size (use 7B)");
}

TEST(Status, WithContextPrefixesMessageAndKeepsCode) {
  Status status = Status::ParseError("unexpected end").WithContext("config.json");
  EXPECT_EQ(status.code(), StatusCode::kParseError);
  EXPECT_EQ(status.message(), "config.json: unexpected end");
  EXPECT_TRUE(Status::Ok().WithContext("x").ok());
}

TEST(Result, HoldsValueOrStatus) {
  Result<int> value = 42;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 42);
  Result<int> error = Status::NotFound("no GPU");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().code(), StatusCode::kNotFound);
}

TEST(Result, OkStatusWithoutValueBecomesInternalError) {
  Result<int> result = Status::Ok();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
}

TEST(StatusFromErrno, MissingFileIsTheUsersInput) {
  EXPECT_EQ(StatusFromErrno("open x", ENOENT).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusFromErrno("open x", EISDIR).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusFromErrno("write x", ENOSPC).code(), StatusCode::kIoError);
}

}  // namespace
}  // namespace gpuprobe::core
