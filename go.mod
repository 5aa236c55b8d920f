module cc.dev/cc

go 1.26.8
