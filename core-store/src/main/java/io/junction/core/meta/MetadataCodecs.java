package io.junction.core.meta;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/** How topic and group configurations are written in their metadata files. */
public final class MetadataCodecs {
    private MetadataCodecs() {
    }

    public static final DurableTable.Codec<TopicConfig> TOPIC = new DurableTable.Codec<>() {
        @Override
        public void write(final TopicConfig t, final DataOutput out) throws IOException {
            out.writeUTF(t.name());
            out.writeInt(t.queueCount());
            out.writeUTF(t.type().name());
            out.writeInt(t.permissions());
            DurableTable.writeMap(t.attributes(), out);
        }

        @Override
        public TopicConfig read(final DataInput in) throws IOException {
            return new TopicConfig(in.readUTF(), in.readInt(), TopicType.valueOf(in.readUTF()), in.readInt(),
                    DurableTable.readMap(in));
        }
    };

    public static final DurableTable.Codec<GroupConfig> GROUP = new DurableTable.Codec<>() {
        @Override
        public void write(final GroupConfig g, final DataOutput out) throws IOException {
            out.writeUTF(g.name());
            out.writeInt(g.maxReconsumeTimes());
            out.writeBoolean(g.fifo());
            out.writeBoolean(g.broadcast());
            DurableTable.writeMap(g.attributes(), out);
        }

        @Override
        public GroupConfig read(final DataInput in) throws IOException {
            return new GroupConfig(in.readUTF(), in.readInt(), in.readBoolean(), in.readBoolean(),
                    DurableTable.readMap(in));
        }
    };
}
