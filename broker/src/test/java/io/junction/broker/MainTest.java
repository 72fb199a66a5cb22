package io.junction.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The command line's failure paths; they return before anything starts, so they run in-process. */
class MainTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void shouldExitWith2AndNameAnUnknownKey() {
        final int code = run("--set", "store.segmnet-size=1g");

        assertThat(code).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err.toString()).isEqualTo(
                "junction: unknown configuration key 'store.segmnet-size' (from --set); see --help for the keys"
                        + System.lineSeparator());
    }

    @Test
    void shouldExitWith2ForAMalformedValue() {
        assertThat(run("--set", "store.flush-mode=sometimes")).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err.toString()).startsWith("junction: invalid value for store.flush-mode").hasLineCount(1);
    }

    @Test
    void shouldExitWith2ForAnUnknownOptionInOneLine() {
        assertThat(run("--bogus")).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err.toString()).contains("--bogus").hasLineCount(1);
    }

    @Test
    void shouldExitWith2ForASetWithoutValue() {
        assertThat(run("--set", "http.port")).isEqualTo(Main.EXIT_CONFIG);
        assertThat(err.toString()).contains("KEY=VALUE").hasLineCount(1);
    }

    @Test
    void shouldListEveryKeyInHelp() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .contains("--data-dir=DIR", "--config=FILE", "--set=KEY=VALUE")
                .contains("store.segment-size = 1g", "store.flush-mode = ASYNC  [one of ASYNC, SYNC]")
                .contains("mqtt.port = 1883", "http-cloudevents.enabled = true");
        assertThat(err.toString()).isEmpty();
    }

    private int run(final String... args) {
        return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }
}
