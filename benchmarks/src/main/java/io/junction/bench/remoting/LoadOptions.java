package io.junction.bench.remoting;

import java.util.LinkedHashMap;
import java.util.Map;

/** The command line of the Remoting load mains: {@code --name value} pairs only; anything else prints the usage. */
final class LoadOptions {
    private LoadOptions() {
    }

    /** The pairs in their order; on a stray word or a name without a value prints {@code usage} and exits with 1. */
    static Map<String, String> parse(final String[] args, final String usage) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                System.err.println("usage: " + usage);
                System.exit(1);
            }
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }
}
