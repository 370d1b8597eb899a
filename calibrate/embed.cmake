# embed.cmake - writes a file's bytes as a C array (cmake -DIN=... -DOUT=... -DNAME=... -P embed.cmake):
#   static const char NAME[] = {0x2f, ..., 0};   NUL-terminated, so it is also a C string.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}.tmp" "/* Generated from ${base} by embed.cmake: do not edit. */\nstatic const char ${NAME}[] = {\n${bytes}0};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
