/**
 * QoS as OpenSM programs it: the configuration a port runs ({@link io.vlink.core.qos.QosConfig}: data VLs,
 * the high and low VL arbitration tables, the high limit, SL2VL), read from an {@code opensm.conf} with OpenSM's
 * fallbacks and checks ({@link io.vlink.core.qos.QosReader}, the one way in, with {@link io.vlink.core.qos.QosProgram}
 * and {@link io.vlink.core.qos.OpenSmQos}), and the port a configuration is programmed on
 * ({@link io.vlink.core.qos.QosPort}, {@link io.vlink.core.qos.PortType}) (docs/qos.md).
 */
package io.vlink.core.qos;
