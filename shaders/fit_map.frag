// Fit map, fragment stage. u_fraction holds memory / GPU capacity per cell (R16F, linearly
// filtered). Colour: a sequential blue ramp by lightness while the workload fits (pale:
// little of the GPU, deep blue: nearly all of it; no warning colours), grey with diagonal
// hatching where it does not fit, so the two read apart without colour vision. The capacity
// contour (fraction = 1) is a dark line in a light halo, crisp at any zoom: its distance in
// pixels comes from the screen-space derivative of the fraction (fwidth). The app's legend
// (src/app/fit_map_view.cpp) draws the same ramp.
precision highp float;

in vec2 v_uv;
out vec4 out_colour;

uniform sampler2D u_fraction;
uniform float u_line_px;      // contour half-width in pixels (scaled by the DPR)
uniform vec2 u_marker;        // the current workload, in map coordinates (0..1); < 0: none

vec3 ramp(float f) {
  vec3 low = vec3(0.80, 0.92, 0.89);
  vec3 mid = vec3(0.38, 0.67, 0.80);
  vec3 high = vec3(0.10, 0.29, 0.60);
  return f < 0.5 ? mix(low, mid, f / 0.5) : mix(mid, high, (f - 0.5) / 0.5);
}

void main() {
  float f = texture(u_fraction, v_uv).r;
  vec3 colour = ramp(clamp(f, 0.0, 1.0));
  if (f >= 1.0) {
    float stripe = fract((gl_FragCoord.x + gl_FragCoord.y) / (6.0 * u_line_px));
    colour = mix(vec3(0.42, 0.42, 0.45), vec3(0.30, 0.30, 0.33), step(0.5, stripe));
  }
  float width = max(fwidth(f), 1e-6);
  // Faint contours at 25%, 50%, 75%.
  for (int k = 1; k <= 3; ++k) {
    float d = abs(f - float(k) * 0.25) / width;
    colour = mix(colour, colour * 0.8, 1.0 - smoothstep(0.0, 1.0, d));
  }
  // Capacity contour: |f - 1| measured in pixels; a light halo, then the dark line.
  float px = abs(f - 1.0) / width;
  colour = mix(colour, vec3(1.0), 1.0 - smoothstep(u_line_px + 0.5, u_line_px + 1.5, px));
  colour = mix(colour, vec3(0.05, 0.05, 0.08), 1.0 - smoothstep(u_line_px - 0.5, u_line_px + 0.5, px));
  // The current workload: a ring.
  if (u_marker.x >= 0.0) {
    vec2 d_uv = (v_uv - u_marker) / max(fwidth(v_uv), vec2(1e-6));
    float r = length(d_uv);
    float ring = 1.0 - smoothstep(1.0, 2.0, abs(r - 6.0 * u_line_px));
    colour = mix(colour, vec3(0.95, 0.35, 0.55), ring);
  }
  out_colour = vec4(colour, 1.0);
}
