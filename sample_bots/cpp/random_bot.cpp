// An Arena protocol v1 bot in C++ (cppzmq + msgpack-cxx): plays any game by picking an option.
//
// Usage: build/random_bot [--seed N] [--rule random|first|hash]
//   random  a uniformly random option, from a generator seeded with N and the seat (default);
//   first   always option 0;
//   hash    option (seq * 7 + seat) % count: deterministic, the same rule as the Node and stdio
//           sample bots.
//
// The referee sets ARENA_ENDPOINT (a ZeroMQ endpoint) and ARENA_TOKEN. The bot connects a DEALER,
// sends `hello`, answers every `turn` with an `action` echoing its `seq`, and exits after
// `game_over` (or a fatal `error`). Each message is one frame holding one msgpack map.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include <msgpack.hpp>
#include <zmq.hpp>

namespace {

constexpr int kProtocolVersion = 1;

// A decoded message from the referee, reduced to the fields this bot needs.
struct Inbound {
  std::string type;
  std::int64_t seq = -1;
  std::int64_t seat = -1;
  std::size_t option_count = 0;
  bool fatal = false;
  std::string code;
  std::string message;
};

std::string as_string(const msgpack::object& o) {
  if (o.type == msgpack::type::STR) return std::string(o.via.str.ptr, o.via.str.size);
  return {};
}

std::optional<std::int64_t> as_int(const msgpack::object& o) {
  if (o.type == msgpack::type::POSITIVE_INTEGER) return static_cast<std::int64_t>(o.via.u64);
  if (o.type == msgpack::type::NEGATIVE_INTEGER) return o.via.i64;
  return std::nullopt;
}

// Reads the top-level map; unknown fields are ignored, as the protocol requires.
std::optional<Inbound> parse(const zmq::message_t& frame) {
  msgpack::object_handle handle =
      msgpack::unpack(static_cast<const char*>(frame.data()), frame.size());
  const msgpack::object& root = handle.get();
  if (root.type != msgpack::type::MAP) return std::nullopt;
  Inbound in;
  for (std::uint32_t i = 0; i < root.via.map.size; ++i) {
    const msgpack::object_kv& kv = root.via.map.ptr[i];
    const std::string key = as_string(kv.key);
    const msgpack::object& val = kv.val;
    if (key == "type") {
      in.type = as_string(val);
    } else if (key == "seq") {
      in.seq = as_int(val).value_or(-1);
    } else if (key == "seat") {
      in.seat = as_int(val).value_or(-1);
    } else if (key == "options" && val.type == msgpack::type::ARRAY) {
      in.option_count = val.via.array.size;
    } else if (key == "fatal" && val.type == msgpack::type::BOOLEAN) {
      in.fatal = val.via.boolean;
    } else if (key == "code") {
      in.code = as_string(val);
    } else if (key == "message") {
      in.message = as_string(val);
    }
  }
  return in;
}

void pack_str(msgpack::packer<msgpack::sbuffer>& pk, std::string_view s) {
  pk.pack_str(static_cast<std::uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
}

msgpack::sbuffer hello(const std::string& token, const std::string& name) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(7);
  pack_str(pk, "v");
  pk.pack(kProtocolVersion);
  pack_str(pk, "type");
  pack_str(pk, "hello");
  pack_str(pk, "versions");
  pk.pack_array(1);
  pk.pack(kProtocolVersion);
  pack_str(pk, "token");
  pack_str(pk, token);
  pack_str(pk, "name");
  pack_str(pk, name.substr(0, 64));
  pack_str(pk, "lang");
  pack_str(pk, "c++");
  pack_str(pk, "bot_version");
  pack_str(pk, "1.0.0");
  return buf;
}

msgpack::sbuffer action(std::int64_t seq, std::int64_t choice) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(4);
  pack_str(pk, "v");
  pk.pack(kProtocolVersion);
  pack_str(pk, "type");
  pack_str(pk, "action");
  pack_str(pk, "seq");
  pk.pack(seq);
  pack_str(pk, "choice");
  pk.pack(choice);
  return buf;
}

void send(zmq::socket_t& sock, const msgpack::sbuffer& buf) {
  sock.send(zmq::const_buffer(buf.data(), buf.size()), zmq::send_flags::none);
}

enum class Rule { Random, First, Hash };

struct Args {
  std::uint64_t seed = 0;
  Rule rule = Rule::Random;
};

[[noreturn]] void usage(const std::string& bad) {
  std::cerr << "usage: random_bot [--seed N] [--rule random|first|hash] (bad: " << bad << ")\n";
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    std::string value;
    if (auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      usage(key);
    }
    if (key == "--seed") {
      char* end = nullptr;
      args.seed = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0') usage(key + " " + value);
    } else if (key == "--rule") {
      if (value == "random") args.rule = Rule::Random;
      else if (value == "first") args.rule = Rule::First;
      else if (value == "hash") args.rule = Rule::Hash;
      else usage(key + " " + value);
    } else {
      usage(key);
    }
  }
  return args;
}

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const char* endpoint = std::getenv("ARENA_ENDPOINT");
  const char* token = std::getenv("ARENA_TOKEN");
  if (env_or("ARENA_TRANSPORT", "zmq") == "stdio") {
    std::cerr << "this bot speaks ZeroMQ only: run it without the stdio: prefix\n";
    return 2;
  }
  if (endpoint == nullptr || token == nullptr) {
    std::cerr << "ARENA_ENDPOINT and ARENA_TOKEN must be set: bots are started by the referee\n";
    return 2;
  }
  std::int64_t seat = std::atoll(env_or("ARENA_SEAT", "0").c_str());
  std::mt19937_64 rng(args.seed);

  zmq::context_t ctx(1);
  zmq::socket_t sock(ctx, zmq::socket_type::dealer);
  sock.set(zmq::sockopt::linger, 1000);  // let the last message leave before the socket closes
  sock.connect(endpoint);
  send(sock, hello(token, env_or("ARENA_BOT_NAME", "cpp_random_bot")));

  for (;;) {
    zmq::message_t frame;
    if (!sock.recv(frame, zmq::recv_flags::none)) continue;  // EAGAIN cannot happen (blocking)
    std::optional<Inbound> msg;
    try {
      msg = parse(frame);
    } catch (const msgpack::unpack_error& e) {
      std::cerr << "undecodable message from the referee: " << e.what() << "\n";
      continue;
    }
    if (!msg) continue;
    if (msg->type == "welcome") {
      seat = msg->seat;
      // One stream per (seed, seat), so two copies of this bot in a match play differently.
      rng.seed(args.seed * 1000003ULL + static_cast<std::uint64_t>(seat));
    } else if (msg->type == "turn") {
      const auto count = static_cast<std::int64_t>(msg->option_count);
      std::int64_t choice = 0;
      if (count > 0 && args.rule == Rule::Hash) {
        choice = (msg->seq * 7 + seat) % count;
      } else if (count > 0 && args.rule == Rule::Random) {
        choice = std::uniform_int_distribution<std::int64_t>(0, count - 1)(rng);
      }
      send(sock, action(msg->seq, choice));
    } else if (msg->type == "game_over") {
      std::cerr << "game over\n";
      return 0;
    } else if (msg->type == "error") {
      std::cerr << "referee error " << msg->code << ": " << msg->message << "\n";
      if (msg->fatal) return 1;
    } else {
      std::cerr << "ignoring a message of type " << msg->type << "\n";
    }
  }
}
