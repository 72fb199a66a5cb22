package io.junction.remoting.reply;

/**
 * RocketMQ's request-reply vocabulary (RocketMQ 5.3 {@code MessageConst}, {@code MixAll}): the message properties a
 * request and its reply carry, and the reply topic a cluster's responders send replies to.
 */
public final class ReplyProtocol {
    /** The requesting client's id; copied into the reply by {@code MessageUtil.createReplyMessage}. */
    public static final String REPLY_TO_CLIENT = "REPLY_TO_CLIENT";
    /** The request's timeout in milliseconds. */
    public static final String TTL = "TTL";
    /** {@value #REPLY} on a reply. */
    public static final String MSG_TYPE = "MSG_TYPE";
    public static final String REPLY = "reply";
    /** The cluster whose reply topic the responder sends to; RocketMQ brokers put it on the messages they store. */
    public static final String CLUSTER = "CLUSTER";
    /** When the broker pushed the reply to the requester. */
    public static final String PUSH_REPLY_TIME = "PUSH_REPLY_TIME";
    /**
     * Junction's mark on a {@value #REPLY_TO_CLIENT} that is no client but the reply-to address of a request from
     * another protocol (a client id starts with the client's IP address, never with this).
     */
    public static final String ADDRESS_PREFIX = "reply-to:";
    private static final String REPLY_TOPIC_SUFFIX = "_REPLY_TOPIC";

    private ReplyProtocol() {
    }

    /** The topic responders of a cluster send replies to ({@code MixAll.getReplyTopic}). */
    public static String replyTopic(final String clusterName) {
        return clusterName + REPLY_TOPIC_SUFFIX;
    }

    /**
     * The namespace prefix ({@code ns%}) of a namespaced client's topic, or "" (RocketMQ clients wrap their topics
     * in their namespace as {@code ns%topic}).
     */
    public static String namespacePrefix(final String topic) {
        final int sep = topic.indexOf('%');
        return sep > 0 ? topic.substring(0, sep + 1) : "";
    }
}
