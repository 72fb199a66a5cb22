package io.junction.grpc;

import apache.rocketmq.v2.Address;
import apache.rocketmq.v2.AddressScheme;
import apache.rocketmq.v2.Endpoints;
import io.junction.core.Messaging;
import io.junction.spi.cluster.ClusterEndpoints;
import java.util.regex.Pattern;

/**
 * The endpoints a route or an assignment hands out: this node as the client reached it first, then every other node
 * of the cluster that published its gRPC address ({@link ClusterEndpoints}). The RocketMQ 5 Java client turns an
 * IPv4 {@code Endpoints} with several addresses into one gRPC channel over all of them (its {@code RpcClientImpl}
 * resolves them with its {@code IpNameResolverFactory}; gRPC's default {@code pick_first} uses the first and moves
 * to the next when it fails), so a client that was given one node keeps sending after that node dies. A
 * domain-name endpoint stays alone: the client refuses several addresses in that scheme. On a single node nothing is
 * published and the endpoints are this node's only.
 */
final class RouteEndpoints {
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final Messaging.KvConfigs kv;
    private final Endpoints advertised;

    RouteEndpoints(final Messaging.KvConfigs kv, final Endpoints advertised) {
        this.kv = kv;
        this.advertised = advertised;
    }

    /** The endpoints for a request that named {@code asked} (the address the client used), or none. */
    Endpoints of(final boolean named, final Endpoints asked) {
        final Endpoints self = named && asked.getAddressesCount() > 0 ? asked : advertised;
        if (self.getScheme() != AddressScheme.IPv4) {
            return self;
        }
        final Endpoints.Builder b = self.toBuilder();
        for (String published : ClusterEndpoints.addresses(kv, GrpcSettings.NAME)) {
            final int colon = published.lastIndexOf(':');
            if (colon <= 0 || !IPV4.matcher(published.substring(0, colon)).matches()) {
                continue; // a domain name or IPv6 literal cannot share an IPv4 endpoint list
            }
            final Address address;
            try {
                address = Address.newBuilder().setHost(published.substring(0, colon))
                        .setPort(Integer.parseInt(published.substring(colon + 1))).build();
            } catch (final NumberFormatException e) {
                continue;
            }
            if (!b.getAddressesList().contains(address)) {
                b.addAddresses(address);
            }
        }
        return b.build();
    }
}
