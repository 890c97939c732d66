import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * An Arena protocol v1 bot over stdio in plain Java: plays any game by picking an option index.
 *
 * <p>Usage: java -cp build RandomBot [--seed N] [--rule random|first|hash]. The referee's
 * messages arrive on stdin, one JSON object per line; ours go to stdout the same way, and
 * nothing else may (logs go to stderr). See protocol/PROTOCOL.md and sample_bots/java/README.md.
 */
public final class RandomBot {
    public static void main(String[] args) throws IOException {
        long seed = 0;
        String rule = "random";
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--seed") && i + 1 < args.length) {
                seed = Long.parseLong(args[++i]);
            } else if (args[i].equals("--rule") && i + 1 < args.length) {
                rule = args[++i];
            } else {
                System.err.println("usage: RandomBot [--seed N] [--rule random|first|hash]");
                System.exit(2);
            }
        }
        String token = System.getenv("ARENA_TOKEN");
        if (token == null) {
            System.err.println("ARENA_TOKEN is not set: bots are started by the referee");
            System.exit(2);
        }
        String name = System.getenv().getOrDefault("ARENA_BOT_NAME", "java_random_bot");
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        send(out, "{\"v\":1,\"type\":\"hello\",\"versions\":[1],\"token\":" + Json.quote(token)
                + ",\"name\":" + Json.quote(name.length() > 64 ? name.substring(0, 64) : name)
                + ",\"lang\":\"java\",\"bot_version\":\"1.0.0\"}");
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long seat = 0;
        SplittableRandom random = new SplittableRandom(seed);
        String line;
        while ((line = in.readLine()) != null) {
            Map<?, ?> message = (Map<?, ?>) Json.parse(line);
            switch (String.valueOf(message.get("type"))) {
                case "welcome" -> {
                    seat = (Long) message.get("seat");
                    random = new SplittableRandom(seed * 1000 + seat); // one stream per seat
                }
                case "turn" -> {
                    long seq = (Long) message.get("seq");
                    int count = ((List<?>) message.get("options")).size();
                    long choice = switch (rule) {
                        case "first" -> 0;
                        case "hash" -> (seq * 7 + seat) % count;
                        default -> random.nextInt(count);
                    };
                    send(out, "{\"v\":1,\"type\":\"action\",\"seq\":" + seq + ",\"choice\":" + choice
                            + "}");
                }
                case "game_over" -> {
                    System.err.println("RandomBot: game over");
                    return;
                }
                case "error" -> {
                    System.err.println("RandomBot: referee error " + message.get("code") + ": "
                            + message.get("message"));
                    if (Boolean.TRUE.equals(message.get("fatal"))) {
                        System.exit(1);
                    }
                }
                default -> System.err.println("RandomBot: ignoring " + message.get("type"));
            }
        }
        System.exit(1); // the referee closed our stdin without game_over
    }

    private static void send(PrintStream out, String json) {
        out.print(json + "\n");
        out.flush(); // a pipe is buffered: without this the answer waits while the clock runs
    }
}
