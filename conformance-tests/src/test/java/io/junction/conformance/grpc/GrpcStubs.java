package io.junction.conformance.grpc;

import static io.junction.conformance.grpc.GrpcClients.unique;

import apache.rocketmq.v2.Message;
import apache.rocketmq.v2.MessagingServiceGrpc;
import apache.rocketmq.v2.PullMessageRequest;
import apache.rocketmq.v2.PullMessageResponse;
import apache.rocketmq.v2.Status;
import apache.rocketmq.v2.TelemetryCommand;
import io.junction.conformance.support.RunningBroker;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.rocketmq.shaded.grpc.netty.NettyChannelBuilder;
import org.apache.rocketmq.shaded.io.grpc.ManagedChannel;
import org.apache.rocketmq.shaded.io.grpc.Metadata;
import org.apache.rocketmq.shaded.io.grpc.stub.MetadataUtils;
import org.apache.rocketmq.shaded.io.grpc.stub.StreamObserver;

/**
 * The generated {@code MessagingService} stubs over a plaintext channel to a test broker, for calls no released SDK
 * makes (the offset RPCs) or makes in ways a test cannot steer; every call carries a client id, and is signed as
 * rocketmq-client-java signs when given a user.
 */
final class GrpcStubs implements AutoCloseable {
    private static final Metadata.Key<String> CLIENT_ID = key("x-mq-client-id");
    private static final Metadata.Key<String> DATE_TIME = key("x-mq-date-time");
    private static final Metadata.Key<String> AUTHORIZATION = key("authorization");

    private final ManagedChannel channel;
    private final String clientId = unique("stub-client");
    private final String user;
    private final String secret;

    /** Unsigned calls. */
    GrpcStubs(final RunningBroker broker) {
        this(broker, null, null);
    }

    /** Calls signed for {@code user} with its signing {@code secret}. */
    GrpcStubs(final RunningBroker broker, final String user, final String secret) {
        this.channel = NettyChannelBuilder.forAddress("127.0.0.1", Integer.parseInt(broker.setting("grpc.port")))
                .usePlaintext().build();
        this.user = user;
        this.secret = secret;
    }

    private static Metadata.Key<String> key(final String name) {
        return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
    }

    /** The headers of one call: the client id, and when signing, the date and its HMAC-SHA1 signature. */
    private Metadata headers() {
        final Metadata h = new Metadata();
        h.put(CLIENT_ID, clientId);
        if (user != null) {
            final String dateTime = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC)
                    .format(Instant.now());
            try {
                final Mac mac = Mac.getInstance("HmacSHA1");
                mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
                h.put(DATE_TIME, dateTime);
                h.put(AUTHORIZATION, "MQv2-HMAC-SHA1 Credential=" + user + ", SignedHeaders=x-mq-date-time, "
                        + "Signature=" + HexFormat.of().withUpperCase()
                        .formatHex(mac.doFinal(dateTime.getBytes(StandardCharsets.UTF_8))));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
        return h;
    }

    /** A blocking stub whose calls must end within {@code deadline}. */
    MessagingServiceGrpc.MessagingServiceBlockingStub blocking(final Duration deadline) {
        return MessagingServiceGrpc.newBlockingStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
                .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    MessagingServiceGrpc.MessagingServiceBlockingStub blocking() {
        return blocking(Duration.ofSeconds(10));
    }

    /**
     * One PullMessage answer as its stream carried it: the status, the messages, the next offset (null when none
     * came), and which part came in which order.
     */
    record Pulled(Status status, List<Message> messages, Long nextOffset, List<PullMessageResponse.ContentCase> order) {
        List<String> bodies() {
            return messages.stream().map(m -> m.getBody().toStringUtf8()).toList();
        }
    }

    /** Pulls and reads the whole answer; the call's deadline is {@code deadline}. */
    Pulled pull(final PullMessageRequest request, final Duration deadline) {
        final Iterator<PullMessageResponse> answer = blocking(deadline).pullMessage(request);
        Status status = null;
        Long next = null;
        final List<Message> messages = new ArrayList<>();
        final List<PullMessageResponse.ContentCase> order = new ArrayList<>();
        while (answer.hasNext()) {
            final PullMessageResponse r = answer.next();
            order.add(r.getContentCase());
            switch (r.getContentCase()) {
                case STATUS -> status = r.getStatus();
                case MESSAGE -> messages.add(r.getMessage());
                case NEXT_OFFSET -> next = r.getNextOffset();
                default -> throw new AssertionError("empty PullMessageResponse");
            }
        }
        return new Pulled(status, messages, next, order);
    }

    /**
     * Opens a Telemetry stream, sends {@code command} and returns the server's first answer (the stream stays open
     * until this object closes).
     */
    TelemetryCommand telemetry(final TelemetryCommand command, final Duration deadline) throws Exception {
        final CompletableFuture<TelemetryCommand> first = new CompletableFuture<>();
        final StreamObserver<TelemetryCommand> requests = MessagingServiceGrpc.newStub(channel)
                .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers()))
                .telemetry(new StreamObserver<>() {
                    @Override
                    public void onNext(final TelemetryCommand value) {
                        first.complete(value);
                    }

                    @Override
                    public void onError(final Throwable t) {
                        first.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        first.completeExceptionally(new IllegalStateException("telemetry ended without an answer"));
                    }
                });
        requests.onNext(command);
        return first.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(10, TimeUnit.SECONDS);
    }
}
