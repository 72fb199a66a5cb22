package io.junction.mqtt;

import io.junction.core.Messaging;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A session's subscriptions and the readers serving them: one {@link TopicReader} per core topic its filters read
 * (every topic of its namespace for a root wildcard, found again as topics appear), one {@link SharedReader} per share
 * group and topic; and the filters readers match against, republished as immutable lists whenever a subscription
 * changes. Runs on the session's executor.
 */
final class SessionSubscriptions {
    private final Session session;
    private final Messaging messaging;
    private final Map<String, Subscription> subscriptions = new LinkedHashMap<>();
    private volatile List<TopicFilter> filters = List.of();
    private volatile Map<String, List<TopicFilter>> sharedFilters = Map.of();
    private final Map<String, TopicReader> readers = new HashMap<>();
    private final Map<String, SharedReader> sharedReaders = new HashMap<>();
    private ScheduledFuture<?> topicScan;

    SessionSubscriptions(final Session session, final Messaging messaging) {
        this.session = session;
        this.messaging = messaging;
    }

    Map<String, Subscription> byFilter() {
        return subscriptions;
    }

    List<TopicFilter> filters() {
        return filters;
    }

    /** Every filter, the session's own then the shared ones, as last published (read from any thread). */
    List<TopicFilter> allFilters() {
        final Map<String, List<TopicFilter>> shared = sharedFilters;
        if (shared.isEmpty()) {
            return filters;
        }
        final List<TopicFilter> all = new ArrayList<>(filters);
        shared.values().forEach(all::addAll);
        return all;
    }

    List<TopicFilter> sharedFilters(final String shareName) {
        return sharedFilters.getOrDefault(shareName, List.of());
    }

    /** Whether a reader reads the core topic for this session's own (not shared) subscriptions. */
    boolean readsTopic(final String coreTopic) {
        return readers.containsKey(coreTopic);
    }

    void resumeAll() {
        readers.values().forEach(TopicReader::resume);
        sharedReaders.values().forEach(SharedReader::resume);
    }

    /** The session has room again: its topic readers pull on (shared readers pop as they are told). */
    void resumeTopicReaders() {
        readers.values().forEach(TopicReader::resume);
    }

    void close() {
        readers.values().forEach(TopicReader::close);
        sharedReaders.values().forEach(SharedReader::close);
        readers.clear();
        sharedReaders.clear();
        if (topicScan != null) {
            topicScan.cancel(false);
        }
    }

    /** Adds or replaces a subscription; returns true when it already existed. */
    boolean subscribe(final Subscription sub) {
        final boolean existed = subscriptions.put(sub.filter().text(), sub) != null;
        refreshFilters();
        final TopicFilter f = sub.filter();
        if (f.shared()) {
            final String key = f.shareGroup() + "\u0000" + core(f);
            sharedReaders.computeIfAbsent(key, k -> {
                final SharedReader r = new SharedReader(session, messaging, f.shareGroup(), core(f));
                session.executor().execute(r::resume);
                return r;
            });
        } else if (core(f) != null) {
            ensureReader(core(f), true);
        } else {
            for (var t : messaging.topics().list()) {
                if (readsAtRoot(t.name())) {
                    ensureReader(t.name(), true);
                }
            }
            if (topicScan == null) {
                topicScan = session.executor().scheduleWithFixedDelay(this::scanTopics, 500, 500,
                        TimeUnit.MILLISECONDS);
            }
        }
        return existed;
    }

    /** The committed read offsets of the topic readers (the QoS 2 ledger saves them with its state). */
    Map<Qos2Ledger.Queue, Long> committedOffsets() {
        final Map<Qos2Ledger.Queue, Long> out = new HashMap<>();
        for (TopicReader r : readers.values()) {
            r.committedOffsets(out);
        }
        return out;
    }

    /** Restores a subscription of a session read back at start: readers resume from committed offsets. */
    void restore(final Subscription sub) {
        subscriptions.put(sub.filter().text(), sub);
        refreshFilters();
        final TopicFilter f = sub.filter();
        if (f.shared()) {
            sharedReaders.computeIfAbsent(f.shareGroup() + "\u0000" + core(f),
                    k -> new SharedReader(session, messaging, f.shareGroup(), core(f)));
        } else if (core(f) != null) {
            readers.computeIfAbsent(core(f), t -> new TopicReader(session, messaging, t, false));
        } else {
            for (var t : messaging.topics().list()) {
                if (readsAtRoot(t.name())) {
                    readers.computeIfAbsent(t.name(), n -> new TopicReader(session, messaging, n, false));
                }
            }
            if (topicScan == null) {
                topicScan = session.executor().scheduleWithFixedDelay(this::scanTopics, 500, 500,
                        TimeUnit.MILLISECONDS);
            }
        }
    }

    boolean unsubscribe(final String filterText) {
        final Subscription removed = subscriptions.remove(filterText);
        if (removed == null) {
            return false;
        }
        refreshFilters();
        // Drop readers no remaining subscription needs.
        boolean rootWildcard = false;
        final Set<String> topics = new HashSet<>();
        final Set<String> shares = new HashSet<>();
        for (Subscription s : subscriptions.values()) {
            final TopicFilter f = s.filter();
            if (f.shared()) {
                shares.add(f.shareGroup() + "\u0000" + core(f));
            } else if (core(f) == null) {
                rootWildcard = true;
            } else {
                topics.add(core(f));
            }
        }
        if (!rootWildcard) {
            if (topicScan != null) {
                topicScan.cancel(false);
                topicScan = null;
            }
            readers.entrySet().removeIf(e -> {
                final boolean drop = !topics.contains(e.getKey());
                if (drop) {
                    e.getValue().close();
                }
                return drop;
            });
        }
        sharedReaders.entrySet().removeIf(e -> {
            final boolean drop = !shares.contains(e.getKey());
            if (drop) {
                e.getValue().close();
            }
            return drop;
        });
        return true;
    }

    /** The core topic a filter reads in this session's namespace; null when its first level is a wildcard. */
    private String core(final TopicFilter f) {
        final String first = f.coreTopic();
        return first == null ? null : session.namespace.core(first);
    }

    /** Whether a root wildcard ({@code #}, {@code +/...}) of this session reads a core topic. */
    private boolean readsAtRoot(final String coreTopic) {
        return session.namespace.owns(coreTopic) && !CoreTopics.isInternal(session.namespace.local(coreTopic));
    }

    private void ensureReader(final String coreTopic, final boolean startAtEnd) {
        readers.computeIfAbsent(coreTopic, t -> {
            final TopicReader r = new TopicReader(session, messaging, t, startAtEnd);
            return r;
        });
    }

    private void scanTopics() {
        if (session.closed()) {
            return;
        }
        for (var t : messaging.topics().list()) {
            if (readsAtRoot(t.name()) && !readers.containsKey(t.name())) {
                readers.put(t.name(), new TopicReader(session, messaging, t.name(), false));
            }
        }
    }

    private void refreshFilters() {
        final List<TopicFilter> plain = new ArrayList<>();
        final Map<String, List<TopicFilter>> shared = new HashMap<>();
        for (Subscription s : subscriptions.values()) {
            if (s.filter().shared()) {
                shared.computeIfAbsent(s.filter().shareGroup(), k -> new ArrayList<>()).add(s.filter());
            } else {
                plain.add(s.filter());
            }
        }
        filters = List.copyOf(plain);
        sharedFilters = Map.copyOf(shared);
    }
}
