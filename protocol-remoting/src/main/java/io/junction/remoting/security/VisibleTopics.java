package io.junction.remoting.security;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.ResponseCode;
import io.junction.tenancy.Action;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Narrows a topic list ({@code {"topicList":[...]}}) to the topics the caller may LIST or GET. */
final class VisibleTopics {
    static final Permission.ResponseFilter FILTER = VisibleTopics::filter;

    private VisibleTopics() {
    }

    static RemotingCommand filter(final RemotingCommand response, final Predicate<Demand> visible) {
        if (response.code() != ResponseCode.SUCCESS || response.body() == null) {
            return response;
        }
        final JsonNode list = Json.parse(response.body()).get("topicList");
        final List<String> kept = new ArrayList<>();
        if (list != null && list.isArray()) {
            for (JsonNode t : list) {
                final String topic = t.asText();
                if (visible.test(Demand.topic(topic, Action.LIST, Action.GET))) {
                    kept.add(topic);
                }
            }
        }
        return response.body(Json.bytes(Json.write(Map.of("topicList", kept))));
    }
}
