package io.junction.core.pop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Sealed receipt handles: they open with their key only, intact, from any thread. */
class ReceiptHandleTest {
    private static final ReceiptHandle HANDLE = new ReceiptHandle(42, 3, "group-é", "%RETRY%group-é_t", 7, 123456789L,
            2, 1_800_000_000_000L);

    private final ReceiptHandle.Codec codec = new ReceiptHandle.Codec("secret-1".getBytes(StandardCharsets.UTF_8));

    @Test
    void shouldOpenWhatItSealed() {
        assertThat(codec.decode(codec.encode(HANDLE))).isEqualTo(HANDLE);
    }

    @Test
    void shouldRefuseAHandleSealedWithAnotherKeyOrAltered() {
        final String sealed = codec.encode(HANDLE);
        assertThat(new ReceiptHandle.Codec("secret-2".getBytes(StandardCharsets.UTF_8)).decode(sealed)).isNull();
        final char[] c = sealed.toCharArray();
        c[10] = c[10] == 'A' ? 'B' : 'A';
        assertThat(codec.decode(new String(c))).isNull();
        assertThat(codec.decode(sealed.substring(0, sealed.length() - 2))).isNull();
        assertThat(codec.decode("not a handle")).isNull();
        assertThat(codec.decode(null)).isNull();
    }

    @Test
    void shouldSealAndOpenFromManyThreadsAtOnce() throws Exception {
        final ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            final List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                final int thread = t;
                results.add(threads.submit(() -> {
                    int ok = 0;
                    for (int i = 0; i < 5_000; i++) {
                        final ReceiptHandle h = new ReceiptHandle(i, thread, "g", "t", i % 8, i, 0, i * 1000L);
                        if (h.equals(codec.decode(codec.encode(h)))) {
                            ok++;
                        }
                    }
                    return ok;
                }));
            }
            for (Future<Integer> r : results) {
                assertThat(r.get()).isEqualTo(5_000);
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
