package io.junction.remoting.protocol;

/** The {@code language} header field: names in JSON headers, these byte codes in ROCKETMQ headers. */
public final class LanguageCode {
    private static final String[] NAMES = {
        "JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST",
        "NODE_JS",
    };

    private LanguageCode() {
    }

    public static String name(final int code) {
        return code >= 0 && code < NAMES.length ? NAMES[code] : "OTHER";
    }

    public static int code(final String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return 7;
    }
}
