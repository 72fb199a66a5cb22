package io.junction.core.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.log.DispatchInfo;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MessageIndexTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private static DispatchInfo record(final String topic, final long logOffset, final String keys,
                                       final String uniqueId) {
        return new DispatchInfo(topic, 0, logOffset / 100, logOffset, 100, T0 + logOffset, 0, null, keys, uniqueId);
    }

    @Test
    void shouldFindEachKeyAndIdOfARecordNewestFirst() throws IOException {
        final MessageIndex index = MessageIndex.open(dir, 64);
        index.add(record("orders", 0, " order-1  customer-9 ", "ID-A"));
        index.add(record("orders", 100, "order-2 customer-9", "ID-B"));
        index.add(record("invoices", 200, "order-1", null));

        assertThat(index.find("orders", "order-1", T0, T0 + 1000, 10)).containsExactly(0L);
        assertThat(index.find("orders", "customer-9", T0, T0 + 1000, 10)).containsExactly(100L, 0L);
        assertThat(index.find("orders", "ID-B", T0, T0 + 1000, 10)).containsExactly(100L);
        assertThat(index.find("invoices", "order-1", T0, T0 + 1000, 10)).containsExactly(200L);
        assertThat(index.find("orders", "", T0, T0 + 1000, 10)).isEmpty();
        assertThat(index.lastIndexedOffset()).isEqualTo(200);
    }

    @Test
    void shouldRollToANewFileWhenTheKeysOfARecordDoNotFit() throws IOException {
        final MessageIndex index = MessageIndex.open(dir, 4);
        for (int i = 0; i < 10; i++) {
            index.add(record("orders", i * 100L, "k" + i + " shared", "ID-" + i));
        }
        final MessageIndex reopened = reopen(index);
        assertThat(reopened.find("orders", "shared", T0, T0 + 10_000, 100))
                .containsExactly(900L, 800L, 700L, 600L, 500L, 400L, 300L, 200L, 100L, 0L);
        assertThat(reopened.find("orders", "k7", T0, T0 + 10_000, 100)).containsExactly(700L);
        assertThat(reopened.find("orders", "ID-3", T0, T0 + 10_000, 100)).containsExactly(300L);
        assertThat(reopened.lastIndexedOffset()).isEqualTo(900);
    }

    @Test
    void shouldSkipRecordsWithoutKeysAndRecordsAlreadyIndexed() throws IOException {
        final MessageIndex index = MessageIndex.open(dir, 64);
        index.add(record("orders", 0, null, null));
        assertThat(index.lastIndexedOffset()).isEqualTo(-1);
        index.add(record("orders", 100, "a", null));
        index.add(record("orders", 100, "a", null)); // re-dispatched after a restart
        assertThat(index.find("orders", "a", T0, T0 + 1000, 10)).containsExactly(100L);
    }

    private MessageIndex reopen(final MessageIndex index) throws IOException {
        index.flush();
        return MessageIndex.open(dir, 4);
    }
}
