package compiler

import (
	"fmt"
	"math/big"
	"net"
	"strings"

	"github.com/apparentlymart/go-cidr/cidr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/gocty"
)

// Terraform's IP network functions (issue 15), on go-cidr as Terraform's
// are.

// parseCIDR is the network of a prefix argument, or Terraform's error.
func parseCIDR(v cty.Value) (*net.IPNet, error) {
	_, network, err := net.ParseCIDR(decimalOctets(v.AsString()))
	if err != nil {
		return nil, fmt.Errorf("invalid CIDR expression: %s", err)
	}
	return network, nil
}

// decimalOctets drops the leading zeros of an IPv4 prefix's octets
// ("010.001.0.0/24" is 10.1.0.0/24): Terraform's parser reads them as
// decimal, as Go's did before Go 1.17, which refuses them.
func decimalOctets(prefix string) string {
	addr, bits, ok := strings.Cut(prefix, "/")
	octets := strings.Split(addr, ".")
	if !ok || len(octets) != 4 {
		return prefix
	}
	for i, o := range octets {
		if len(o) < 2 || len(o) > 3 || strings.Trim(o, "0123456789") != "" {
			continue
		}
		if octets[i] = strings.TrimLeft(o, "0"); octets[i] == "" {
			octets[i] = "0"
		}
	}
	return strings.Join(octets, ".") + "/" + bits
}

// bigInt is a number argument as an integer.
func bigInt(v cty.Value) (*big.Int, error) {
	var n *big.Int
	err := gocty.FromCtyValue(v, &n)
	return n, err
}

var cidrHostFunc = function.New(&function.Spec{
	Description: "Calculates a full host IP address within a given IP network address prefix.",
	Params:      []function.Parameter{{Name: "prefix", Type: cty.String}, {Name: "hostnum", Type: cty.Number}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		num, err := bigInt(args[1])
		if err != nil {
			return cty.NilVal, err
		}
		network, err := parseCIDR(args[0])
		if err != nil {
			return cty.NilVal, err
		}
		ip, err := cidr.HostBig(network, num)
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(ip.String()), nil
	},
})

var cidrNetmaskFunc = function.New(&function.Spec{
	Description: "Converts an IPv4 address prefix given in CIDR notation into a subnet mask address.",
	Params:      []function.Parameter{{Name: "prefix", Type: cty.String}},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		network, err := parseCIDR(args[0])
		if err != nil {
			return cty.NilVal, err
		}
		if network.IP.To4() == nil {
			return cty.NilVal, fmt.Errorf("IPv6 addresses cannot have a netmask: %s", args[0].AsString())
		}
		return cty.StringVal(net.IP(network.Mask).String()), nil
	},
})

var cidrSubnetFunc = function.New(&function.Spec{
	Description: "Calculates a subnet address within a given IP network address prefix.",
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String}, {Name: "newbits", Type: cty.Number}, {Name: "netnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var newbits int
		if err := gocty.FromCtyValue(args[1], &newbits); err != nil {
			return cty.NilVal, err
		}
		num, err := bigInt(args[2])
		if err != nil {
			return cty.NilVal, err
		}
		network, err := parseCIDR(args[0])
		if err != nil {
			return cty.NilVal, err
		}
		subnet, err := cidr.SubnetBig(network, newbits, num)
		if err != nil {
			return cty.NilVal, err
		}
		return cty.StringVal(subnet.String()), nil
	},
})

var cidrSubnetsFunc = function.New(&function.Spec{
	Description: "Calculates a sequence of consecutive IP address ranges within a particular CIDR prefix.",
	Params:      []function.Parameter{{Name: "prefix", Type: cty.String}},
	VarParam:    &function.Parameter{Name: "newbits", Type: cty.Number},
	Type:        function.StaticReturnType(cty.List(cty.String)),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		network, err := parseCIDR(args[0])
		if err != nil {
			return cty.NilVal, function.NewArgError(0, err)
		}
		if len(args) == 1 {
			return cty.ListValEmpty(cty.String), nil
		}
		return consecutiveSubnets(network, args[1:])
	},
})

// consecutiveSubnets are cidrsubnets' subnets of network, one per number of
// new bits, each right after the one before.
func consecutiveSubnets(network *net.IPNet, newbits []cty.Value) (cty.Value, error) {
	base, _ := network.Mask.Size()
	var first int
	if err := gocty.FromCtyValue(newbits[0], &first); err != nil {
		return cty.NilVal, function.NewArgError(1, err)
	}
	current, _ := cidr.PreviousSubnet(network, first+base)
	out := make([]cty.Value, len(newbits))
	for i, v := range newbits {
		var n int
		if err := gocty.FromCtyValue(v, &n); err != nil {
			return cty.NilVal, function.NewArgError(i+1, err)
		}
		switch {
		case n < 1:
			return cty.NilVal, function.NewArgErrorf(i+1, "must extend prefix by at least one bit")
		case n > 32:
			return cty.NilVal, function.NewArgErrorf(i+1, "may not extend prefix by more than 32 bits")
		}
		length := n + base
		if bits := len(network.IP) * 8; length > bits {
			proto := map[int]string{32: "IPv4", 128: "IPv6"}[bits]
			return cty.NilVal, function.NewArgErrorf(i+1, "would extend prefix to %d bits, which is too long for an %s address", length, proto)
		}
		next, rollover := cidr.NextSubnet(current, length)
		if rollover || !network.Contains(next.IP) {
			return cty.NilVal, function.NewArgErrorf(i+1, "not enough remaining address space for a subnet with a prefix of %d bits after %s", length, current.String())
		}
		current = next
		out[i] = cty.StringVal(current.String())
	}
	return cty.ListVal(out), nil
}
