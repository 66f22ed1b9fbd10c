#pragma language glsl3
// examples/love3d/fox.glsl: linear blend skinning in the vertex shader, a
// directional light and the model's texture in the pixel shader.  main.lua
// adds, after the first line, `#define JOINTS n` (the skin's joints) and,
// for the crowd, `#define CROWD 1` (and WRONG: see main.lua).
//
// One fox: `bones` is a uniform array of mat4, sent each frame with
// Shader:send("bones", byteData, "column") from animator:skin(byteData,
// { layout = "mat4" }) (column-major, as glTF and GLSL hold matrices).
// The crowd: every fox's matrices in one RGBA32F texture, a row a fox
// (love_InstanceID), four texels a joint (its columns), which one
// anim.update(list, dt, { skin = imageData, skin_layout = "mat4" }) wrote.
//
// The mirror of this arithmetic in Lua is spec/love3d_spec.lua's
// `shader_skin`: change one, change the other.
varying vec3 v_normal;

#ifdef VERTEX
attribute vec4 VertexJoints;   // 0-based indices into the skin's joints
attribute vec4 VertexWeights;  // sum 1 (the importer normalised them)
attribute vec3 VertexNormal;
uniform mat4 view_proj;        // projection x view, made in Lua

#ifdef CROWD
uniform Image bone_tex;
uniform int columns;           // foxes a row of the grid
uniform float spacing;         // model units between two foxes
mat4 bone(float j) {
  int x = 4 * int(j), y = love_InstanceID;
  return mat4(texelFetch(bone_tex, ivec2(x, y), 0), texelFetch(bone_tex, ivec2(x + 1, y), 0),
              texelFetch(bone_tex, ivec2(x + 2, y), 0), texelFetch(bone_tex, ivec2(x + 3, y), 0));
}
#else
uniform mat4 bones[JOINTS];
mat4 bone(float j) { return bones[int(j)]; }
#endif

vec4 position(mat4 transform_projection, vec4 vertex_position) {
  // the blended matrix: sum of weight_i * M(joint_i) (glTF's "Skins")
  mat4 skin = VertexWeights.x * bone(VertexJoints.x) + VertexWeights.y * bone(VertexJoints.y)
            + VertexWeights.z * bone(VertexJoints.z) + VertexWeights.w * bone(VertexJoints.w);
#ifdef WRONG
  skin = bone(VertexJoints.x);   // a wrong skinning, for the spec's check
#endif
  vec4 world = skin * vec4(vertex_position.xyz, 1.0);
  // normals turned by the blended matrix's 3x3 part (as anim.skin_vertices
  // and three.js do), made unit length in the pixel shader
  v_normal = mat3(skin) * VertexNormal;
#ifdef CROWD
  world.x += (float(love_InstanceID % columns) - 0.5 * float(columns - 1)) * spacing;
  world.z -= float(love_InstanceID / columns) * spacing;
#endif
  return view_proj * world;
}
#endif

#ifdef PIXEL
uniform vec3 light_dir;        // unit, the way the light travels
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
  float lit = max(dot(normalize(v_normal), -light_dir), 0.0);
  vec4 c = Texel(tex, uv) * color;
  return vec4(c.rgb * (0.35 + 0.65 * lit), 1.0);
}
#endif
