package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PopRequest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.meta.TopicConfig;
import io.junction.remoting.processor.FilterCache;
import io.junction.remoting.processor.PopProcessor;
import io.junction.remoting.processor.RequestProcessor;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.spi.clients.PopConsumers;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A POP parked in a long poll is given up when its connection closes: it takes nothing for a client that left. */
class LongPollsEndWithTheirConnectionTest {
    @TempDir
    Path dir;

    @Test
    void shouldTakeNothingForAClientThatLeftWhileItsPopWaited() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("t", 2)).join();
            final RequestProcessor pop = new PopProcessor(store, new FilterCache(),
                    new BrokerIdentity("b", "c", "127.0.0.1:9876"), 20_000, new PopConsumers());
            final RemotingHandler handler = new RemotingHandler(Map.of(PopProcessor.POP_MESSAGE, pop),
                    new ClientChannels(), new ClientCalls(new AtomicInteger()), store, 64, null, null, null);
            final EmbeddedChannel client = new EmbeddedChannel(handler);
            client.writeInbound(RemotingCommand.request(PopProcessor.POP_MESSAGE, 1, false)
                    .put("consumerGroup", "g").put("topic", "t").put("maxMsgNums", 8)
                    .put("invisibleTime", 60_000L).put("pollTime", 20_000L));
            Thread.sleep(200); // let it park
            client.runPendingTasks();
            assertThat((Object) client.readOutbound()).as("still waiting for messages").isNull();

            client.close();
            store.send(TestStores.text("t", "after the client left")).join();
            TestStores.awaitIndexed(store);
            Thread.sleep(200); // a parked pop would have taken it by now
            assertThat(store.inFlight()).as("nothing taken for a client that left").isZero();
            assertThat(store.pop(new PopRequest("g", "t", null, 8, 60_000, 0)).join().messages()).hasSize(1);
        }
    }
}
