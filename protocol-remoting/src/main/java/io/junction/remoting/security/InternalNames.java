package io.junction.remoting.security;

import io.junction.remoting.processor.RouteProcessor;
import io.junction.tenancy.ResourceKind;
import java.util.Locale;

/**
 * Topics and groups the broker and the SDK keep for themselves (half and op-half messages, POP revive log, delay
 * levels, the auto-create template, system consumer groups). Their names carry no {@code %}, so to the policy they
 * look like ordinary names of the default namespace, and a default-namespace rule such as {@code Topic:*} would
 * cover them: reading the half topic would show every tenant's unfinished transactions. Only super users reach them
 * directly; ordinary clients reach what they need through the rules of {@link RequestPermissions}.
 */
final class InternalNames {
    private InternalNames() {
    }

    static boolean reserved(final ResourceKind kind, final String name, final String clusterName,
                            final String brokerName) {
        if (kind == ResourceKind.CLUSTER || name == null) {
            return false;
        }
        final String upper = name.toUpperCase(Locale.ROOT);
        if (kind == ResourceKind.GROUP) {
            return upper.startsWith("CID_RMQ_SYS_") || upper.startsWith("CID_SYS_RMQ_");
        }
        return upper.startsWith("RMQ_SYS_") || upper.startsWith("SCHEDULE_TOPIC_")
                || RouteProcessor.AUTO_CREATE_TOPIC.equals(name) || name.equals(clusterName)
                || name.equals(brokerName);
    }
}
