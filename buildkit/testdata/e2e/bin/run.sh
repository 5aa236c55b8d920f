#!/bin/sh
echo "run $*"
