package io.junction.cluster.contract;

import io.junction.core.filter.FilterSpec;
import io.junction.core.filter.MessageFilter;
import io.junction.core.filter.SqlDialect;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Filters on the wire, as their {@link FilterSpec}: a kind byte, then the kind's fields; composites carry their parts.
 * The receiving node compiles the spec ({@link FilterSpec#compile()}) into a filter that accepts and rejects the same
 * messages.
 */
final class FilterCodec {
    private static final byte FILTER_ALL = 0;
    private static final byte FILTER_TAG = 1;
    private static final byte FILTER_SQL = 2;
    private static final byte FILTER_ALL_OF = 3;
    private static final byte FILTER_ANY_OF = 4;
    private static final byte FILTER_NOT = 5;
    private static final byte FILTER_ATTRIBUTES = 6;
    private static final byte FILTER_EXTENSION = 7;
    /** Deepest filter tree read (CloudEvents nests all/any/not; far below this). */
    private static final int MAX_FILTER_DEPTH = 32;

    private FilterCodec() {
    }

    /**
     * Writes a filter as its spec.
     *
     * @throws IllegalArgumentException when the filter cannot be described ({@link MessageFilter#spec()} is null)
     */
    static void writeFilter(final ByteBuf out, final MessageFilter filter) {
        final FilterSpec spec = filter.spec();
        if (spec == null) {
            throw new IllegalArgumentException("the filter " + filter + " cannot be described to another node");
        }
        writeSpec(out, spec);
    }

    private static void writeSpec(final ByteBuf out, final FilterSpec spec) {
        if (spec instanceof FilterSpec.All) {
            out.writeByte(FILTER_ALL);
        } else if (spec instanceof FilterSpec.Tag tag) {
            out.writeByte(FILTER_TAG);
            WireFormat.writeString(out, tag.expression());
        } else if (spec instanceof FilterSpec.Sql sql) {
            out.writeByte(FILTER_SQL);
            WireFormat.writeString(out, sql.expression());
            out.writeByte(sql.dialect().ordinal());
            WireFormat.writeProperties(out, sql.propertyNames());
        } else if (spec instanceof FilterSpec.AllOf all) {
            out.writeByte(FILTER_ALL_OF);
            writeSpecs(out, all.parts());
        } else if (spec instanceof FilterSpec.AnyOf any) {
            out.writeByte(FILTER_ANY_OF);
            writeSpecs(out, any.parts());
        } else if (spec instanceof FilterSpec.Not not) {
            out.writeByte(FILTER_NOT);
            writeSpec(out, not.part());
        } else if (spec instanceof FilterSpec.AttributeMatch match) {
            out.writeByte(FILTER_ATTRIBUTES);
            out.writeByte(match.mode().ordinal());
            WireFormat.writeStrings(out, match.properties());
            WireFormat.writeStrings(out, match.values());
        } else if (spec instanceof FilterSpec.Extension extension) {
            out.writeByte(FILTER_EXTENSION);
            WireFormat.writeString(out, extension.kind());
            WireFormat.writeStrings(out, extension.arguments());
        } else {
            throw new IllegalArgumentException("unknown filter spec " + spec);
        }
    }

    private static void writeSpecs(final ByteBuf out, final List<FilterSpec> specs) {
        out.writeInt(specs.size());
        for (FilterSpec s : specs) {
            writeSpec(out, s);
        }
    }

    /** Reads a filter spec; compiling it ({@link FilterSpec#compile()}) may still fail for a malformed expression. */
    static FilterSpec readFilter(final ByteBuf in) {
        return readSpec(in, 0);
    }

    private static FilterSpec readSpec(final ByteBuf in, final int depth) {
        if (depth > MAX_FILTER_DEPTH) {
            throw new MalformedFrameException("a filter nested deeper than " + MAX_FILTER_DEPTH);
        }
        final byte kind = WireFormat.readByte(in);
        try {
            switch (kind) {
                case FILTER_ALL:
                    return new FilterSpec.All();
                case FILTER_TAG:
                    return new FilterSpec.Tag(WireFormat.readString(in));
                case FILTER_SQL:
                    return new FilterSpec.Sql(WireFormat.readString(in), WireFormat.readEnum(in, SqlDialect.values()), WireFormat.readProperties(in));
                case FILTER_ALL_OF:
                    return new FilterSpec.AllOf(readSpecs(in, depth));
                case FILTER_ANY_OF:
                    return new FilterSpec.AnyOf(readSpecs(in, depth));
                case FILTER_NOT:
                    return new FilterSpec.Not(readSpec(in, depth + 1));
                case FILTER_ATTRIBUTES:
                    return new FilterSpec.AttributeMatch(WireFormat.readEnum(in, FilterSpec.AttributeMode.values()),
                            WireFormat.readStrings(in), WireFormat.readStrings(in));
                case FILTER_EXTENSION:
                    return new FilterSpec.Extension(WireFormat.readString(in), WireFormat.readStrings(in));
                default:
                    throw new MalformedFrameException("unknown filter kind " + kind);
            }
        } catch (NullPointerException | IllegalArgumentException e) {
            throw new MalformedFrameException("a bad filter: " + e.getMessage());
        }
    }

    private static List<FilterSpec> readSpecs(final ByteBuf in, final int depth) {
        final int n = WireFormat.readLength(in, 1, false);
        final List<FilterSpec> specs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            specs.add(readSpec(in, depth + 1));
        }
        return specs;
    }
}
