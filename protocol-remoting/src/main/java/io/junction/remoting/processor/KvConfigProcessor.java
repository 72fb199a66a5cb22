package io.junction.remoting.processor;

import io.junction.core.Messaging;
import io.junction.remoting.protocol.Json;
import io.junction.remoting.protocol.RemotingCommand;
import io.junction.remoting.protocol.RequestCode;
import io.junction.remoting.protocol.ResponseCode;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;

/**
 * The name server's key-value configuration ({@code mqadmin updateKvConfig}, {@code getKvConfig},
 * {@code deleteKvConfig}): PUT_KV_CONFIG, GET_KV_CONFIG, DELETE_KV_CONFIG and GET_KVLIST_BY_NAMESPACE, kept durably
 * by the core.
 */
public final class KvConfigProcessor implements RequestProcessor {
    private final Messaging.KvConfigs configs;

    public KvConfigProcessor(final Messaging messaging) {
        this.configs = messaging.kvConfigs();
    }

    @Override
    public CompletableFuture<RemotingCommand> process(final Channel channel, final RemotingCommand request) {
        final String namespace = request.requireField("namespace");
        return switch (request.code()) {
            case RequestCode.PUT_KV_CONFIG -> configs.put(namespace, request.requireField("key"),
                    request.requireField("value")).thenApply(v -> Responses.success(request));
            case RequestCode.DELETE_KV_CONFIG -> configs.delete(namespace, request.requireField("key"))
                    .thenApply(v -> Responses.success(request));
            case RequestCode.GET_KV_CONFIG -> Responses.done(get(request, namespace, request.requireField("key")));
            default -> Responses.done(list(request, namespace));
        };
    }

    private RemotingCommand get(final RemotingCommand request, final String namespace, final String key) {
        final Optional<String> value = configs.get(namespace, key);
        return value.isPresent() ? Responses.success(request).put("value", value.get())
                : Responses.error(request, ResponseCode.QUERY_NOT_FOUND,
                        "No config item, Namespace: " + namespace + " Key: " + key);
    }

    /** GET_KVLIST_BY_NAMESPACE: the namespace's items as a {@code KVTable}. */
    private RemotingCommand list(final RemotingCommand request, final String namespace) {
        final SortedMap<String, String> items = configs.list(namespace);
        if (items.isEmpty()) {
            return Responses.error(request, ResponseCode.QUERY_NOT_FOUND, "No config item, Namespace: " + namespace);
        }
        return Responses.success(request).body(Json.bytes(Json.write(Map.of("table", items))));
    }
}
