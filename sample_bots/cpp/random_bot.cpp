// An Arena protocol v1 bot in C++ (cppzmq + msgpack-cxx): plays any game by picking an option.
//
// Usage: build/random_bot [--seed N] [--rule random|first|hash] [--deltas]
//   random  a uniformly random option, from a generator seeded with N and the seat (default);
//   first   always option 0;
//   hash    option (seq * 7 + seat) % count: deterministic, the same rule as the Node and stdio
//           sample bots.
// --deltas: offer views as deltas (protocol 1.2; without it, every view comes whole).
//
// The referee sets ARENA_TRANSPORT, ARENA_TOKEN and, for ZeroMQ, ARENA_ENDPOINT. Over `zmq` the
// bot connects a DEALER (one msgpack map per frame); over `pipe` it reads its stdin and writes its
// stdout, each message a 4-byte big-endian length and then the msgpack map. It sends `hello`
// (offering reuse, and with --deltas protocol 1.2's views as deltas), answers every `turn` with an `action` echoing
// its `seq`, and after `game_over` exits, or waits for the next `welcome` when the referee keeps
// the process (`welcome.reuse`).

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include <msgpack.hpp>
#include <zmq.hpp>

namespace {

constexpr int kProtocolVersion = 1;

std::string as_string(const msgpack::object& o) {
  if (o.type == msgpack::type::STR) return std::string(o.via.str.ptr, o.via.str.size);
  return {};
}

std::optional<std::int64_t> as_int(const msgpack::object& o) {
  if (o.type == msgpack::type::POSITIVE_INTEGER) return static_cast<std::int64_t>(o.via.u64);
  if (o.type == msgpack::type::NEGATIVE_INTEGER) return o.via.i64;
  return std::nullopt;
}

const msgpack::object* field(const msgpack::object& map, std::string_view key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
    const msgpack::object_kv& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR &&
        std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) == key) {
      return &kv.val;
    }
  }
  return nullptr;
}

// What the bot knows of its match: the view as the referee last described it, field by field
// (a whole `view`, or with `dropped` a delta applied to the one before: PROTOCOL.md 8.5), and
// the game's static data.
class Knowledge {
 public:
  // A new match: a new view; the game data stays unless the welcome carries new data (a kept
  // process that takes deltas is sent `game.same` instead of the same data again).
  void welcome(const msgpack::object& msg) {
    view_.clear();
    const msgpack::object* game = field(msg, "game");
    const msgpack::object* data = game != nullptr ? field(*game, "data") : nullptr;
    if (data != nullptr) data_ = msgpack::clone(*data);
  }

  // A `turn` or `game_over`: without `dropped` its view is whole; with it, the keys listed
  // there are gone and those in `view` replace their old values whole.
  void update(const msgpack::object& msg) {
    const msgpack::object* dropped = field(msg, "dropped");
    if (dropped == nullptr) {
      view_.clear();
    } else if (dropped->type == msgpack::type::ARRAY) {
      for (std::uint32_t i = 0; i < dropped->via.array.size; ++i) {
        view_.erase(as_string(dropped->via.array.ptr[i]));
      }
    }
    if (const msgpack::object* view = field(msg, "view")) set_all(*view);
  }

  // A view field (nullptr if absent), e.g. view("hand").
  const msgpack::object* view(const std::string& key) const {
    auto it = view_.find(key);
    return it == view_.end() ? nullptr : &it->second.get();
  }

  const msgpack::object& data() const { return data_.get(); }

 private:
  void set_all(const msgpack::object& map) {
    if (map.type != msgpack::type::MAP) return;
    for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
      const msgpack::object_kv& kv = map.via.map.ptr[i];
      view_[as_string(kv.key)] = msgpack::clone(kv.val);
    }
  }

  std::map<std::string, msgpack::object_handle> view_;
  msgpack::object_handle data_;
};

void pack_str(msgpack::packer<msgpack::sbuffer>& pk, std::string_view s) {
  pk.pack_str(static_cast<std::uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
}

msgpack::sbuffer hello(const std::string& token, const std::string& name, bool deltas) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(deltas ? 9 : 8);
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
  pack_str(pk, "1.1.0");
  pack_str(pk, "reuse");  // every match is played as by a fresh process: see `welcome` below
  pk.pack(true);
  if (deltas) {
    pack_str(pk, "deltas");  // Knowledge applies them (PROTOCOL.md 8.5)
    pk.pack(true);
  }
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

// One message at a time to and from the referee.
class Link {
 public:
  virtual ~Link() = default;
  virtual void send(const msgpack::sbuffer& buf) = 0;
  // The next message's bytes; false when the referee has gone.
  virtual bool recv(std::string& out) = 0;
};

class ZmqLink : public Link {
 public:
  explicit ZmqLink(const char* endpoint) : ctx_(1), sock_(ctx_, zmq::socket_type::dealer) {
    sock_.set(zmq::sockopt::linger, 1000);  // let the last message leave before it closes
    sock_.connect(endpoint);
  }

  void send(const msgpack::sbuffer& buf) override {
    sock_.send(zmq::const_buffer(buf.data(), buf.size()), zmq::send_flags::none);
  }

  bool recv(std::string& out) override {
    zmq::message_t frame;
    if (!sock_.recv(frame, zmq::recv_flags::none)) return false;
    out.assign(static_cast<const char*>(frame.data()), frame.size());
    return true;
  }

 private:
  zmq::context_t ctx_;
  zmq::socket_t sock_;
};

// stdin and stdout, each message a 4-byte big-endian length and its bytes. Nothing else may
// be written on stdout: logs go to stderr.
class PipeLink : public Link {
 public:
  void send(const msgpack::sbuffer& buf) override {
    std::string out(4, '\0');
    const auto size = static_cast<std::uint32_t>(buf.size());
    for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(size >> (24 - 8 * i));
    out.append(buf.data(), buf.size());
    for (std::size_t done = 0; done < out.size();) {
      const ssize_t n = ::write(1, out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) std::exit(1);  // the referee closed our stdout: nothing left to do
      done += static_cast<std::size_t>(n);
    }
  }

  bool recv(std::string& out) override {
    unsigned char head[4];
    if (!read_exactly(reinterpret_cast<char*>(head), 4)) return false;
    const std::uint32_t size = (std::uint32_t{head[0]} << 24) | (std::uint32_t{head[1]} << 16) |
                               (std::uint32_t{head[2]} << 8) | std::uint32_t{head[3]};
    out.resize(size);
    return read_exactly(out.data(), size);
  }

 private:
  static bool read_exactly(char* into, std::size_t size) {
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::read(0, into + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
};

enum class Rule { Random, First, Hash };

struct Args {
  std::uint64_t seed = 0;
  Rule rule = Rule::Random;
  bool deltas = false;
};

[[noreturn]] void usage(const std::string& bad) {
  std::cerr << "usage: random_bot [--seed N] [--rule random|first|hash] [--deltas] (bad: "
            << bad << ")\n";
  std::exit(2);
}

Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    std::string value;
    if (key == "--deltas") {
      args.deltas = true;
      continue;
    }
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

std::unique_ptr<Link> connect() {
  const std::string transport = env_or("ARENA_TRANSPORT", "zmq");
  if (transport == "pipe") return std::make_unique<PipeLink>();
  const char* endpoint = std::getenv("ARENA_ENDPOINT");
  if (transport != "zmq" || endpoint == nullptr) {
    std::cerr << "this bot speaks zmq or pipe (got " << transport
              << "); bots are started by the referee\n";
    std::exit(2);
  }
  return std::make_unique<ZmqLink>(endpoint);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const char* token = std::getenv("ARENA_TOKEN");
  if (token == nullptr) {
    std::cerr << "ARENA_TOKEN must be set: bots are started by the referee\n";
    return 2;
  }
  std::int64_t seat = std::atoll(env_or("ARENA_SEAT", "0").c_str());
  std::mt19937_64 rng(args.seed);
  Knowledge known;
  bool kept = false;  // this process plays another match after game_over

  std::unique_ptr<Link> link = connect();
  link->send(hello(token, env_or("ARENA_BOT_NAME", "cpp_random_bot"), args.deltas));

  std::string bytes;
  while (link->recv(bytes)) {
    msgpack::object_handle handle;
    try {
      handle = msgpack::unpack(bytes.data(), bytes.size());
    } catch (const msgpack::unpack_error& e) {
      std::cerr << "undecodable message from the referee: " << e.what() << "\n";
      continue;
    }
    const msgpack::object& msg = handle.get();
    const msgpack::object* type_field = field(msg, "type");
    const std::string type = type_field != nullptr ? as_string(*type_field) : "";
    if (type == "welcome") {
      const msgpack::object* seat_field = field(msg, "seat");
      seat = seat_field != nullptr ? as_int(*seat_field).value_or(0) : 0;
      const msgpack::object* reuse = field(msg, "reuse");
      kept = reuse != nullptr && reuse->type == msgpack::type::BOOLEAN && reuse->via.boolean;
      known.welcome(msg);
      // One stream per (seed, seat), reset at each welcome: a kept process plays every match
      // exactly as a fresh one would, and two copies of this bot in a match play differently.
      rng.seed(args.seed * 1000003ULL + static_cast<std::uint64_t>(seat));
    } else if (type == "turn") {
      known.update(msg);
      const msgpack::object* seq_field = field(msg, "seq");
      const msgpack::object* options = field(msg, "options");
      const std::int64_t seq = seq_field != nullptr ? as_int(*seq_field).value_or(-1) : -1;
      const std::int64_t count = options != nullptr && options->type == msgpack::type::ARRAY
                                     ? static_cast<std::int64_t>(options->via.array.size)
                                     : 0;
      // A real bot would read known.view("hand") and the options here.
      std::int64_t choice = 0;
      if (count > 0 && args.rule == Rule::Hash) {
        choice = (seq * 7 + seat) % count;
      } else if (count > 0 && args.rule == Rule::Random) {
        choice = std::uniform_int_distribution<std::int64_t>(0, count - 1)(rng);
      }
      link->send(action(seq, choice));
    } else if (type == "game_over") {
      known.update(msg);
      if (!kept) {
        std::cerr << "game over\n";
        return 0;
      }
    } else if (type == "error") {
      const msgpack::object* code = field(msg, "code");
      const msgpack::object* text = field(msg, "message");
      const msgpack::object* fatal = field(msg, "fatal");
      std::cerr << "referee error " << (code ? as_string(*code) : "") << ": "
                << (text ? as_string(*text) : "") << "\n";
      if (fatal != nullptr && fatal->type == msgpack::type::BOOLEAN && fatal->via.boolean) return 1;
    } else {
      std::cerr << "ignoring a message of type " << type << "\n";
    }
  }
  return kept ? 0 : 1;  // the referee closed the pipe: a kept process's normal end
}
