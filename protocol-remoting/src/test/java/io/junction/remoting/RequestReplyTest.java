package io.junction.remoting;

import static org.assertj.core.api.Assertions.assertThat;

import io.junction.core.PullRequest;
import io.junction.core.engine.MessageStore;
import io.junction.core.engine.TestStores;
import io.junction.core.message.MessageProperties;
import io.junction.core.message.StoredMessage;
import io.junction.core.meta.TopicConfig;
import io.junction.remoting.processor.ReplyProcessor;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.remoting.reply.PendingRequests;
import io.junction.remoting.reply.ReplyPush;
import io.junction.remoting.reply.ReplyRelay;
import io.junction.remoting.reply.RocketMqRequests;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A RocketMQ request, then its reply through SEND_REPLY_MESSAGE_V2, with channels standing in for the clients. */
class RequestReplyTest {
    private static final String REPLY_TOPIC = "JunctionCluster_REPLY_TOPIC";

    @TempDir
    Path dir;

    private static RemotingCommand reply(final Map<String, String> props) {
        return RemotingCommand.request(RequestCode.SEND_REPLY_MESSAGE_V2, 7, false).put("a", "responders")
                .put("b", REPLY_TOPIC).put("e", 0).put("f", 0).put("g", 1000L).put("h", 0)
                .put("i", MessageProperties.encode(props)).put("j", 0)
                .body("pong".getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, String> props(final String... pairs) {
        final Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    @Test
    void shouldPushAReplyToTheConnectionItsRequestCameOverAndAnswerOnceTheClientTookIt() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            final ClientCalls calls = new ClientCalls(new AtomicInteger());
            final PendingRequests pending = new PendingRequests(System::currentTimeMillis);
            final ReplyPush push = new ReplyPush(calls, "127.0.0.1:9876");
            try (ReplyRelay relay = new ReplyRelay(store, pending, push)) {
                final EmbeddedChannel requester = new EmbeddedChannel();
                final Map<String, String> request = props("CORRELATION_ID", "corr-1", "REPLY_TO_CLIENT",
                        "10.0.0.9@req", "TTL", "3000");
                new RocketMqRequests("JunctionCluster", pending, relay).prepare(requester, "orders", request).join();
                assertThat(request).containsEntry("CLUSTER", "JunctionCluster")
                        .containsEntry("REPLY_TO", REPLY_TOPIC);

                final ReplyProcessor processor = new ReplyProcessor(store, pending, new ClientChannels(), push);
                final CompletableFuture<RemotingCommand> answer = processor.process(new EmbeddedChannel(),
                        reply(props("CORRELATION_ID", "corr-1", "REPLY_TO_CLIENT", "10.0.0.9@req",
                                "MSG_TYPE", "reply")));

                final RemotingCommand pushed = requester.readOutbound();
                assertThat(pushed.code()).isEqualTo(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT);
                assertThat(pushed.extFields()).containsEntry("topic", REPLY_TOPIC).containsEntry("queueId", "0")
                        .containsKeys("producerGroup", "defaultTopic", "defaultTopicQueueNums", "sysFlag",
                                "bornTimestamp", "flag", "bornHost", "storeHost", "storeTimestamp");
                assertThat(MessageProperties.decode(pushed.field("properties"))).containsEntry("CORRELATION_ID",
                        "corr-1").containsKey("PUSH_REPLY_TIME");
                assertThat(new String(pushed.body(), StandardCharsets.UTF_8)).isEqualTo("pong");
                assertThat(answer).as("waits for the client").isNotDone();

                calls.answered(RemotingCommand.responseTo(pushed, ResponseCode.SUCCESS, null));
                final RemotingCommand response = answer.get();
                assertThat(response.code()).isEqualTo(ResponseCode.SUCCESS);
                assertThat(response.field("msgId")).isNotEqualTo("0");
            }
        }
    }

    @Test
    void shouldFailAReplyWhoseRequesterIsGone() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of(REPLY_TOPIC, 1)).join();
            final ClientCalls calls = new ClientCalls(new AtomicInteger());
            final ReplyProcessor processor = new ReplyProcessor(store, new PendingRequests(System::currentTimeMillis),
                    new ClientChannels(), new ReplyPush(calls, "127.0.0.1:9876"));
            final RemotingCommand response = processor.process(new EmbeddedChannel(), reply(props(
                    "CORRELATION_ID", "corr-2", "REPLY_TO_CLIENT", "10.0.0.9@gone", "MSG_TYPE", "reply"))).get();
            assertThat(response.code()).isEqualTo(ResponseCode.SYSTEM_ERROR);
            assertThat(response.remark()).isEqualTo("push reply message fail, channel of <10.0.0.9@gone> not found.");

            final RemotingCommand noTarget = processor.process(new EmbeddedChannel(), reply(props(
                    "CORRELATION_ID", "corr-3"))).get();
            assertThat(noTarget.code()).isEqualTo(ResponseCode.SYSTEM_ERROR);
            assertThat(noTarget.remark()).contains("REPLY_TO_CLIENT");
        }
    }

    @Test
    void shouldStoreAReplyToAnotherProtocolsRequestAtItsReplyToAddress() throws Exception {
        try (MessageStore store = MessageStore.open(TestStores.small(dir).build())) {
            store.topics().createOrUpdate(TopicConfig.of("replies", 1)).join();
            final ReplyProcessor processor = new ReplyProcessor(store, new PendingRequests(System::currentTimeMillis),
                    new ClientChannels(), new ReplyPush(new ClientCalls(new AtomicInteger()), "127.0.0.1:9876"));
            final RemotingCommand response = processor.process(new EmbeddedChannel(), reply(props(
                    "CORRELATION_ID", "corr-4", "REPLY_TO_CLIENT", "reply-to:replies/client-7", "MSG_TYPE", "reply",
                    "TTL", "3000", "CLUSTER", "JunctionCluster", "answer", "42"))).get();
            assertThat(response.code()).isEqualTo(ResponseCode.SUCCESS);

            TestStores.awaitIndexed(store);
            final List<StoredMessage> stored = store.pull(new PullRequest("g", "replies", 0, 0, 8, null, 0)).join()
                    .messages();
            assertThat(stored).hasSize(1);
            assertThat(stored.get(0).properties()).containsEntry("CORRELATION_ID", "corr-4")
                    .containsEntry("mqtt.topic", "replies/client-7").containsEntry("answer", "42")
                    .doesNotContainKeys("REPLY_TO_CLIENT", "MSG_TYPE", "TTL", "CLUSTER");
            assertThat(TestStores.body(stored.get(0))).isEqualTo("pong");
        }
    }
}
