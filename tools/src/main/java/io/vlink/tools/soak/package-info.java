/**
 * {@code vlink soak}: two ports back to back under traffic and faults, then the checks of docs/soak.md. What a
 * soak runs with ({@link io.vlink.tools.soak.SoakSettings}), the engines and links it is run on
 * ({@link io.vlink.tools.soak.SoakRig}, {@link io.vlink.tools.soak.SoakPeer}, {@link io.vlink.tools.soak.FaultyLink}),
 * the traffic, faults and checks ({@link io.vlink.tools.soak.SoakTraffic}, {@link io.vlink.tools.soak.SoakFaults},
 * {@link io.vlink.tools.soak.SoakChecks}), run by {@link io.vlink.tools.soak.SoakRunner}; the result and its reports
 * ({@link io.vlink.tools.soak.SoakResult}, {@link io.vlink.tools.soak.HtmlReport}).
 */
package io.vlink.tools.soak;
