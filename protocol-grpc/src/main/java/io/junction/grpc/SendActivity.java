package io.junction.grpc;

import apache.rocketmq.v2.Code;
import apache.rocketmq.v2.MessageType;
import apache.rocketmq.v2.RecallMessageRequest;
import apache.rocketmq.v2.RecallMessageResponse;
import apache.rocketmq.v2.SendMessageRequest;
import apache.rocketmq.v2.SendMessageResponse;
import apache.rocketmq.v2.SendResultEntry;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.SystemProperties;
import io.junction.core.Messaging;
import io.junction.core.RecallHandle;
import io.junction.core.SendResult;
import io.junction.core.message.Message;
import io.junction.core.meta.TopicConfig;
import io.junction.core.meta.TopicType;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * SendMessage: checks each message as RocketMQ 5's proxy does (ids, property keys and sizes, body size, delivery
 * time, message type against the topic type), maps it with {@link MessageMapping} and stores it.
 */
final class SendActivity {
    /** Most bytes all user properties of one message may take. */
    static final int MAX_PROPERTIES_SIZE = 16 * 1024;

    private final Messaging messaging;
    private final GrpcSettings settings;

    SendActivity(final Messaging messaging, final GrpcSettings settings) {
        this.messaging = messaging;
        this.settings = settings;
    }

    CompletableFuture<SendMessageResponse> send(final SendMessageRequest request, final InetSocketAddress peer) {
        if (request.getMessagesCount() == 0) {
            return CompletableFuture.completedFuture(SendMessageResponse.newBuilder()
                    .setStatus(Statuses.of(Code.BAD_REQUEST, "no message to send")).build());
        }
        final List<CompletableFuture<SendResultEntry>> entries = new ArrayList<>();
        for (apache.rocketmq.v2.Message m : request.getMessagesList()) {
            entries.add(sendOne(m, peer));
        }
        return CompletableFuture.allOf(entries.toArray(CompletableFuture[]::new)).thenApply(v -> {
            final SendMessageResponse.Builder b = SendMessageResponse.newBuilder();
            Status common = null;
            boolean mixed = false;
            for (CompletableFuture<SendResultEntry> f : entries) {
                final SendResultEntry e = f.join();
                b.addEntries(e);
                if (common == null) {
                    common = e.getStatus();
                } else if (common.getCode() != e.getStatus().getCode()) {
                    mixed = true;
                }
            }
            b.setStatus(mixed ? Statuses.of(Code.MULTIPLE_RESULTS, "messages have different results") : common);
            return b.build();
        });
    }

    private CompletableFuture<SendResultEntry> sendOne(final apache.rocketmq.v2.Message m,
                                                       final InetSocketAddress peer) {
        final Status refusal = check(m);
        if (refusal != null) {
            return CompletableFuture.completedFuture(SendResultEntry.newBuilder().setStatus(refusal)
                    .setMessageId(m.getSystemProperties().getMessageId()).build());
        }
        final boolean transactional = m.getSystemProperties().getMessageType() == MessageType.TRANSACTION;
        final Message message;
        try {
            message = MessageMapping.toCore(m, peer);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(SendResultEntry.newBuilder()
                    .setStatus(Statuses.of(Code.BAD_REQUEST, e.getMessage())).build());
        }
        CompletableFuture<SendResult> sent;
        try {
            sent = messaging.send(message);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((r, failure) -> {
            if (failure != null) {
                return SendResultEntry.newBuilder()
                        .setStatus(Statuses.fromFailure(failure, Code.BAD_REQUEST))
                        .setMessageId(m.getSystemProperties().getMessageId()).build();
            }
            final SendResultEntry.Builder e = SendResultEntry.newBuilder().setStatus(Statuses.OK)
                    .setMessageId(r.uniqueId()).setOffset(r.queueOffset());
            if (transactional) {
                e.setTransactionId(r.uniqueId());
            }
            if (!transactional && m.getSystemProperties().hasDeliveryTimestamp()) {
                // parked until then: the result's log offset is the parked record's, which the handle names
                final long at = MessageMapping.millis(m.getSystemProperties().getDeliveryTimestamp());
                if (at > System.currentTimeMillis()) {
                    e.setRecallHandle(new RecallHandle(r.topic(), r.uniqueId(), at, r.commitLogOffset()).encode());
                }
            }
            return e.build();
        });
    }

    /**
     * RecallMessage: a delayed message is recalled before its delivery time and never delivered. BAD_REQUEST for a
     * handle that is not one (or names another topic), NOT_FOUND when no delayed message waits under it any more
     * (delivered, or never delayed).
     */
    CompletableFuture<RecallMessageResponse> recall(final RecallMessageRequest request) {
        final String topic = ResourceNames.core(request.getTopic());
        if (request.getTopic().getName().isEmpty()) {
            return CompletableFuture.completedFuture(RecallMessageResponse.newBuilder()
                    .setStatus(Statuses.of(Code.ILLEGAL_TOPIC, "topic is missing")).build());
        }
        final RecallHandle handle = RecallHandle.decode(request.getRecallHandle());
        if (handle == null || !handle.topic().equals(topic)) {
            return CompletableFuture.completedFuture(RecallMessageResponse.newBuilder()
                    .setStatus(Statuses.of(Code.BAD_REQUEST, handle == null ? "recall handle is not valid"
                            : "recall handle is of another topic")).build());
        }
        CompletableFuture<Void> recalled;
        try {
            recalled = messaging.recall(handle);
        } catch (RuntimeException e) {
            recalled = CompletableFuture.failedFuture(e);
        }
        return recalled.handle((v, failure) -> RecallMessageResponse.newBuilder()
                .setStatus(failure == null ? Statuses.OK : Statuses.fromFailure(failure, Code.NOT_FOUND))
                .setMessageId(handle.uniqueId()).build());
    }

    /** Why a message is refused before it reaches the core, or null. */
    Status check(final apache.rocketmq.v2.Message m) {
        final String topic = ResourceNames.core(m.getTopic());
        if (m.getTopic().getName().isEmpty()) {
            return Statuses.of(Code.ILLEGAL_TOPIC, "topic is missing");
        }
        final SystemProperties sp = m.getSystemProperties();
        if (sp.getMessageId().isEmpty()) {
            return Statuses.of(Code.ILLEGAL_MESSAGE_ID, "message id is missing");
        }
        if (m.getBody().size() > settings.maxBodySize()) {
            return Statuses.of(Code.MESSAGE_BODY_TOO_LARGE, "body of " + m.getBody().size()
                    + " bytes exceeds the maximum of " + settings.maxBodySize());
        }
        if (sp.hasTag() && (sp.getTag().isBlank() || sp.getTag().contains("|"))) {
            return Statuses.of(Code.ILLEGAL_MESSAGE_TAG, "tag '" + sp.getTag() + "' is blank or contains '|'");
        }
        for (String key : sp.getKeysList()) {
            if (key.isBlank()) {
                return Statuses.of(Code.ILLEGAL_MESSAGE_KEY, "message key is blank");
            }
        }
        if (m.getUserPropertiesCount() > MessageMapping.MAX_USER_PROPERTIES) {
            return Statuses.of(Code.MESSAGE_PROPERTIES_TOO_LARGE, m.getUserPropertiesCount()
                    + " user properties; at most " + MessageMapping.MAX_USER_PROPERTIES + " are allowed");
        }
        int size = 0;
        for (Map.Entry<String, String> e : m.getUserPropertiesMap().entrySet()) {
            final String why = MessageMapping.illegalPropertyKey(e.getKey());
            if (why != null) {
                return Statuses.of(Code.ILLEGAL_MESSAGE_PROPERTY_KEY, why);
            }
            size += e.getKey().length() + e.getValue().length();
        }
        if (size > MAX_PROPERTIES_SIZE) {
            return Statuses.of(Code.MESSAGE_PROPERTIES_TOO_LARGE, "user properties take " + size
                    + " characters; at most " + MAX_PROPERTIES_SIZE + " are allowed");
        }
        final MessageType type = sp.getMessageType();
        if (type == MessageType.FIFO && sp.getMessageGroup().isEmpty()) {
            return Statuses.of(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "a FIFO message needs a message group");
        }
        if (type == MessageType.DELAY && !sp.hasDeliveryTimestamp()) {
            return Statuses.of(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "a delay message needs a delivery time");
        }
        if (sp.hasDeliveryTimestamp()) {
            final long at = MessageMapping.millis(sp.getDeliveryTimestamp());
            if (at - System.currentTimeMillis() > settings.maxDelayMillis()) {
                return Statuses.of(Code.ILLEGAL_DELIVERY_TIME, "delivery time is more than "
                        + settings.maxDelayMillis() / 1000 + " s away");
            }
        }
        if (settings.validateMessageType()) {
            final Optional<TopicConfig> config = messaging.route(topic);
            if (config.isPresent() && !accepts(config.get().type(), type)) {
                return Statuses.of(Code.MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "topic " + m.getTopic().getName()
                        + " takes "
                        + config.get().type() + " messages, not " + typeName(type)
                        + " (grpc.validate-message-type=false relaxes this)");
            }
        }
        return null;
    }

    /** Whether a topic of {@code topicType} takes messages of {@code type} (RocketMQ 5's rule). */
    static boolean accepts(final TopicType topicType, final MessageType type) {
        return switch (topicType) {
            case MIXED -> true;
            case NORMAL -> type == MessageType.NORMAL || type == MessageType.MESSAGE_TYPE_UNSPECIFIED;
            case FIFO -> type == MessageType.FIFO;
            case DELAY -> type == MessageType.DELAY;
            case TRANSACTION -> type == MessageType.TRANSACTION;
        };
    }

    /** The message types a topic of {@code topicType} takes, for routes. */
    static List<MessageType> accepted(final TopicType topicType) {
        return switch (topicType) {
            case MIXED -> List.of(MessageType.NORMAL, MessageType.FIFO, MessageType.DELAY, MessageType.TRANSACTION);
            case NORMAL -> List.of(MessageType.NORMAL);
            case FIFO -> List.of(MessageType.FIFO);
            case DELAY -> List.of(MessageType.DELAY);
            case TRANSACTION -> List.of(MessageType.TRANSACTION);
        };
    }

    private static String typeName(final MessageType type) {
        return type == MessageType.MESSAGE_TYPE_UNSPECIFIED ? "NORMAL" : type.name();
    }
}
