package io.junction.cloudevents;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * A refused request: its status and an RFC 9457 problem body ({@code application/problem+json}) that names the bad
 * attribute (and the event's index in a batch) when there is one. Thrown by decoding and validation, turned into the
 * response by the handlers; only bad input takes this path.
 */
public final class Problem extends RuntimeException {
    private static final long serialVersionUID = 1L;
    static final String CONTENT_TYPE = "application/problem+json";

    private final HttpResponseStatus status;
    private final String attribute;
    private final int index;

    public Problem(final HttpResponseStatus status, final String attribute, final String detail) {
        this(status, attribute, -1, detail);
    }

    public Problem(final HttpResponseStatus status, final String attribute, final int index, final String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.attribute = attribute;
        this.index = index;
    }

    public static Problem badRequest(final String attribute, final String detail) {
        return new Problem(HttpResponseStatus.BAD_REQUEST, attribute, detail);
    }

    /** The same problem for the event at {@code eventIndex} of a batch. */
    public Problem at(final int eventIndex) {
        return new Problem(status, attribute, eventIndex, getMessage());
    }

    public HttpResponseStatus status() {
        return status;
    }

    /** The offending attribute, or null. */
    public String attribute() {
        return attribute;
    }

    /** The offending event's index in a batch, or -1. */
    public int index() {
        return index;
    }

    /** The problem document. */
    public String toJson(final ObjectMapper json) {
        final ObjectNode node = json.createObjectNode();
        node.put("type", "about:blank");
        node.put("title", status.reasonPhrase());
        node.put("status", status.code());
        node.put("detail", getMessage());
        if (attribute != null) {
            node.put("attribute", attribute);
        }
        if (index >= 0) {
            node.put("index", index);
        }
        return node.toString();
    }
}
