package io.junction.core.engine;

import static io.junction.core.engine.TestStores.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.message.StoredMessage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queue and index files are sealed (unmapped, read through their channel) once full: reads and key lookups of old
 * entries come back exact, before and after a restart (which opens every file but the newest sealed), and the store
 * keeps writing after a restart.
 */
class SealedFilesTest {
    private static final int MESSAGES = 600;

    @TempDir
    Path dir;

    @Test
    void shouldReadAndFindEntriesOfSealedFilesExactlyAcrossARestart() throws IOException {
        final List<SendResult> sent = new ArrayList<>();
        try (MessageStore store = open()) {
            for (int i = 0; i < MESSAGES; i++) {
                sent.add(store.send(message(i)).join());
            }
            TestStores.awaitIndexed(store);
            assertExact(store, sent);
        }
        try (Stream<Path> files = Files.list(dir.resolve("consumequeue").resolve("t").resolve("0"))) {
            assertThat(files.count()).as("queue files of 16 entries").isGreaterThan(MESSAGES / 16);
        }
        try (MessageStore store = open()) {
            assertExact(store, sent);
            // Written on after the restart: the newest files were opened mapped, the rest sealed.
            for (int i = MESSAGES; i < MESSAGES + 50; i++) {
                sent.add(store.send(message(i)).join());
            }
            TestStores.awaitIndexed(store);
            assertExact(store, sent);
        }
    }

    private MessageStore open() {
        return MessageStore.open(TestStores.small(dir).queueFileEntries(16).indexFileEntries(64)
                .defaultQueueCount(1).mappedWindow(1 << 20).build());
    }

    private static Message message(final int i) {
        return Message.builder("t").queueId(0).keys("key-" + i).body(("body-" + i).getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private static void assertExact(final MessageStore store, final List<SendResult> sent) {
        final List<StoredMessage> read = readAll(store, "t", 0);
        assertThat(read).extracting(m -> StandardCharsets.UTF_8.decode(m.body().duplicate()).toString())
                .containsExactlyElementsOf(sent.stream().map(r -> "body-" + r.queueOffset()).toList());
        for (int i : new int[] {0, 1, 17, 100, sent.size() / 2, sent.size() - 1}) {
            assertThat(store.queryByKey("t", "key-" + i, 10, 0, Long.MAX_VALUE).join())
                    .as("lookup of key-" + i).extracting(StoredMessage::queueOffset).containsExactly((long) i);
            assertThat(store.queryById("t", sent.get(i).uniqueId()).join()).as("lookup by id of message " + i)
                    .map(StoredMessage::queueOffset).contains((long) i);
        }
    }
}
