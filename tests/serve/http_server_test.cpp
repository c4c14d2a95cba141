// The exporter's HTTP side: the request parser on strings, the listen address rules, and the
// server on a real loopback socket with clients that misbehave. No test asserts a speed; the
// receive timeouts below only keep a broken server from hanging the test run.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "serve/http_request.h"
#include "serve/http_server.h"
#include "serve/listen_address.h"

namespace gpuprobe::serve {
namespace {

TEST(HttpRequest, ReadsAGetWithHeadersAndKeepAlive) {
  HttpLimits limits;
  auto p = ParseHttpRequest("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nUser-Agent: prom\r\n\r\nGET /", limits);
  ASSERT_EQ(p.state, HttpParse::State::kComplete);
  EXPECT_EQ(p.request.target, "/metrics");
  EXPECT_TRUE(p.request.keep_alive);
  EXPECT_EQ(p.request.headers[0].first, "host");
  EXPECT_EQ(p.consumed, std::string("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nUser-Agent: prom\r\n\r\n").size());
  EXPECT_FALSE(ParseHttpRequest("GET /m HTTP/1.1\r\nConnection: close\r\n\r\n", limits).request.keep_alive);
  EXPECT_FALSE(ParseHttpRequest("GET /m HTTP/1.0\r\n\r\n", limits).request.keep_alive);
  EXPECT_EQ(ParseHttpRequest("GET /m HTTP/1.1\r\nHost: a\r\n", limits).state, HttpParse::State::kIncomplete);
}

TEST(HttpRequest, RefusesWhatAnExporterDoesNotServe) {
  HttpLimits limits;
  EXPECT_EQ(ParseHttpRequest("POST /metrics HTTP/1.1\r\n\r\n", limits).error_status, 405);
  EXPECT_EQ(ParseHttpRequest("GET /m HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", limits).error_status, 413);
  EXPECT_EQ(ParseHttpRequest("GET /m HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", limits).error_status, 501);
  EXPECT_EQ(ParseHttpRequest("GET /m HTTP/2.0\r\n\r\n", limits).error_status, 505);
  EXPECT_EQ(ParseHttpRequest("GET  /m HTTP/1.1\r\n\r\n", limits).error_status, 400);
  EXPECT_EQ(ParseHttpRequest("GET /m HTTP/1.1\r\n bad: fold\r\n\r\n", limits).error_status, 400);
  EXPECT_EQ(ParseHttpRequest("GET /m HTTP/1.1\r\nno colon\r\n\r\n", limits).error_status, 400);
}

TEST(HttpRequest, LimitsTheHeadsSizeAndItsNumberOfHeaders) {
  HttpLimits limits;
  std::string many = "GET /m HTTP/1.1\r\n";
  for (int i = 0; i < 65; ++i) many += "X-" + std::to_string(i) + ": y\r\n";
  EXPECT_EQ(ParseHttpRequest(many + "\r\n", limits).error_status, 431);
  std::string big = "GET /m HTTP/1.1\r\nX: " + std::string(9000, 'a');
  EXPECT_EQ(ParseHttpRequest(big, limits).error_status, 431);  // refused before the head even ends
  EXPECT_EQ(ParseHttpRequest("GET /" + std::string(5000, 'a'), limits).error_status, 414);
}

TEST(ListenAddress, LoopbackIsTheWholeBlockAndIpv6) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.0.0.2"));  // 127.0.0.0/8, not only .1
  EXPECT_TRUE(IsLoopbackHost("127.255.255.254"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("::ffff:127.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("10.1.2.3"));
  EXPECT_FALSE(IsLoopbackHost("128.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost(""));
}

TEST(ListenAddress, ParsesHostPortAndBracketedIpv6) {
  auto a = ParseListen("[::1]:9400");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 9400);
  EXPECT_FALSE(ParseListen("9400").ok());
  EXPECT_FALSE(ParseListen("::1:9400").ok());
  EXPECT_FALSE(ParseListen("host:70000").ok());
  EXPECT_FALSE(ParseListen(":9400").ok());
}

// A server on a loopback port, run on its own thread, stopped by the fixture.
class ServerTest : public ::testing::Test {
 protected:
  void Start(HttpLimits limits) {
    auto bound = HttpServer::Bind("127.0.0.1", 0, limits);
    ASSERT_TRUE(bound.ok()) << bound.status().ToString();
    server_ = std::move(bound.value());
    ASSERT_EQ(pipe(stop_), 0);
    thread_ = std::thread([this] {
      status_ = server_->Run([](const HttpRequest& r) {
        HttpReply reply;
        reply.body = r.target == "/metrics" ? "gpuprobe_up 1\n" : "other\n";
        return reply;
      }, stop_[0]);
    });
  }
  void Stop() {
    if (!thread_.joinable()) return;
    char byte = 1;
    ASSERT_EQ(write(stop_[1], &byte, 1), 1);
    thread_.join();
    close(stop_[0]);
    close(stop_[1]);
  }
  void TearDown() override { Stop(); }

  int Connect() const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    timeval timeout = {10, 0};  // a hung server fails the test instead of hanging it
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in address = {};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(server_->port()));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    return fd;
  }
  static void Send(int fd, const std::string& text) { ASSERT_EQ(send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size())); }
  // Reads until the peer closes or the response is complete (its Content-Length read; a
  // HEAD response has the header and no body).
  static std::string Receive(int fd, bool head_only = false) {
    std::string out;
    char buffer[4096];
    while (true) {
      ssize_t n = recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      out.append(buffer, static_cast<size_t>(n));
      size_t head = out.find("\r\n\r\n");
      size_t length_at = out.find("Content-Length: ");
      if (head != std::string::npos && length_at != std::string::npos && length_at < head &&
          (head_only || out.size() >= head + 4 + std::stoul(out.substr(length_at + 16)))) {
        break;
      }
    }
    return out;
  }

  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int stop_[2] = {-1, -1};
  core::Status status_;
};

TEST_F(ServerTest, AByteASecondClientDoesNotHoldUpAScrape) {
  Start(HttpLimits{});
  std::atomic<int> sent{0};
  std::atomic<bool> done{false};
  const std::string slow_request = "GET /metrics HTTP/1.1\r\nHost: slow\r\n\r\n";
  std::thread slow([&] {
    int fd = Connect();
    for (char c : slow_request) {
      if (done) break;
      if (send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
      ++sent;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    close(fd);
  });
  while (sent == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  int fd = Connect();
  Send(fd, "GET /metrics HTTP/1.1\r\nHost: scraper\r\n\r\n");
  std::string reply = Receive(fd);
  // The scrape was answered while the slow client was still in the middle of its head.
  EXPECT_LT(sent.load(), static_cast<int>(slow_request.size()));
  EXPECT_NE(reply.find("HTTP/1.1 200 OK"), std::string::npos) << reply;
  EXPECT_NE(reply.find("gpuprobe_up 1"), std::string::npos);
  close(fd);
  done = true;
  slow.join();
}

TEST_F(ServerTest, AHeadThatDoesNotArriveInTimeIsCutOffWith408) {
  HttpLimits limits;
  limits.head_timeout_ms = 300;
  Start(limits);
  int fd = Connect();
  Send(fd, "GET /met");
  std::string reply = Receive(fd);  // the server answers and closes; recv returns 0
  EXPECT_NE(reply.find("408 Request Timeout"), std::string::npos) << reply;
  close(fd);
  Stop();
  EXPECT_EQ(server_->stats().timed_out, 1u);
}

TEST_F(ServerTest, TooManyHeadersAnd431ThenClose) {
  Start(HttpLimits{});
  int fd = Connect();
  std::string head = "GET /metrics HTTP/1.1\r\n";
  for (int i = 0; i < 100; ++i) head += "X-" + std::to_string(i) + ": y\r\n";
  Send(fd, head + "\r\n");
  EXPECT_NE(Receive(fd).find("431"), std::string::npos);
  close(fd);
}

TEST_F(ServerTest, KeepAliveIsCappedPerConnection) {
  HttpLimits limits;
  limits.max_requests_per_connection = 2;
  Start(limits);
  int fd = Connect();
  Send(fd, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_NE(Receive(fd).find("Connection: keep-alive"), std::string::npos);
  Send(fd, "GET /metrics HTTP/1.1\r\n\r\n");
  EXPECT_NE(Receive(fd).find("Connection: close"), std::string::npos);
  char byte;
  EXPECT_EQ(recv(fd, &byte, 1, 0), 0);  // closed after the second
  close(fd);
}

TEST_F(ServerTest, ConnectionsPastTheLimitAreRefused) {
  HttpLimits limits;
  limits.max_connections = 2;
  Start(limits);
  int a = Connect(), b = Connect();
  Send(a, "GET /metrics HTTP/1.1\r\n\r\n");
  Receive(a);  // both are accepted by now
  Send(b, "GET /metrics HTTP/1.1\r\n\r\n");
  Receive(b);
  int c = Connect();
  EXPECT_NE(Receive(c).find("503"), std::string::npos);
  for (int fd : {a, b, c}) close(fd);
}

TEST_F(ServerTest, ASecondServerOnTheSamePortFails) {
  Start(HttpLimits{});
  auto second = HttpServer::Bind("127.0.0.1", server_->port(), HttpLimits{});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), core::StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("in use"), std::string::npos) << second.status().message();
}

TEST_F(ServerTest, StopsWhileAClientHoldsAHalfSentRequest) {
  Start(HttpLimits{});
  int idle = Connect();
  int half = Connect();
  Send(half, "GET /metr");
  Send(idle, "GET /metrics HTTP/1.1\r\n\r\n");
  Receive(idle);
  Stop();  // returns: the drain is bounded, open connections do not keep it alive
  EXPECT_TRUE(status_.ok());
  char byte;
  EXPECT_EQ(recv(half, &byte, 1, 0), 0);
  for (int fd : {idle, half}) close(fd);
}

TEST_F(ServerTest, HeadAnswersTheLengthWithoutTheBody) {
  Start(HttpLimits{});
  int fd = Connect();
  Send(fd, "HEAD /metrics HTTP/1.1\r\n\r\n");
  std::string head = Receive(fd, true);
  EXPECT_NE(head.find("Content-Length: 14"), std::string::npos) << head;
  EXPECT_EQ(head.find("gpuprobe_up"), std::string::npos);
  Send(fd, "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
  std::string body = Receive(fd);
  EXPECT_NE(body.find("gpuprobe_up 1"), std::string::npos);
  close(fd);
}

}  // namespace
}  // namespace gpuprobe::serve
