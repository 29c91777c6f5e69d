package io.vlink.tools;

import io.vlink.tools.json.JsonWriter;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonWriterTest
{
    @Test
    void writesNestedDocumentsThatParse()
    {
        final String text = new JsonWriter().beginObject()
            .field("a", 1)
            .field("b", "x\"y\\z\n\u0001")
            .name("c").beginArray().value(true).value(2.5).beginObject().endObject().endArray()
            .name("d").value(Double.NaN)
            .name("e").value(0.123456, 4)
            .endObject().toString();

        final Map<String, Object> doc = Json.object(text);
        assertEquals(1L, doc.get("a"));
        assertEquals("x\"y\\z\n\u0001", doc.get("b"));
        assertEquals(List.of(true, 2.5, Map.of()), doc.get("c"));
        assertNull(doc.get("d"));
        assertEquals(0.1235, doc.get("e"));
    }

    @Test
    void unbalancedEndIsRefused()
    {
        assertThrows(IllegalStateException.class, () -> new JsonWriter().endObject());
    }
}
