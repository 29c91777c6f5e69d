/**
 * The JSON every command writes ({@link io.vlink.tools.json.JsonWriter}): one writer, so that a key and a number
 * mean the same in every report. Depends on nothing of vlink's.
 */
package io.vlink.tools.json;
