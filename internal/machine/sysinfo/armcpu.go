package sysinfo

// armImplementer names the company behind an arm64 MIDR implementer code, as
// /proc/cpuinfo's "CPU implementer" gives it. The names follow util-linux lscpu.
func armImplementer(code uint64) string {
	switch code {
	case 0x41:
		return "ARM"
	case 0x42:
		return "Broadcom"
	case 0x43:
		return "Cavium"
	case 0x46:
		return "Fujitsu"
	case 0x48:
		return "HiSilicon"
	case 0x4e:
		return "NVIDIA"
	case 0x50:
		return "APM"
	case 0x51:
		return "Qualcomm"
	case 0x53:
		return "Samsung"
	case 0x56:
		return "Marvell"
	case 0x61:
		return "Apple"
	case 0x69:
		return "Intel"
	case 0x6d:
		return "Microsoft"
	case 0x70:
		return "Phytium"
	case 0xc0:
		return "Ampere"
	}
	return ""
}

// armCore names the core of an implementer/part pair and, where the part is known
// under a product name (TSV110 is the Kunpeng 920), that chip name too. Both are
// empty for an unknown pair.
func armCore(implementer, part uint64) (core, chip string) {
	switch implementer {
	case 0x41:
		return armLtdCore(part), ""
	case 0x42:
		switch part {
		case 0x00f:
			return "Brahma-B15", ""
		case 0x100:
			return "Brahma-B53", ""
		case 0x516:
			return "Vulcan", "ThunderX2"
		}
	case 0x43:
		switch part {
		case 0x0a0:
			return "ThunderX", ""
		case 0x0a1:
			return "ThunderX-88XX", ""
		case 0x0a2:
			return "ThunderX-81XX", ""
		case 0x0a3:
			return "ThunderX-83XX", ""
		case 0x0af:
			return "ThunderX2", "ThunderX2 CN99xx"
		case 0x0b8:
			return "ThunderX3", "ThunderX3 T110"
		}
	case 0x46:
		switch part {
		case 0x001:
			return "A64FX", ""
		case 0x003:
			return "MONAKA", ""
		}
	case 0x48:
		switch part {
		case 0xd01:
			return "TSV110", "Kunpeng 920"
		case 0xd02:
			return "TSV120", ""
		case 0xd40:
			return "Cortex-A76", ""
		case 0xd41:
			return "Cortex-A77", ""
		}
	case 0x4e:
		switch part {
		case 0x000:
			return "Denver", ""
		case 0x003:
			return "Denver 2", ""
		case 0x004:
			return "Carmel", ""
		}
	case 0x50:
		if part == 0x000 {
			return "X-Gene", "X-Gene / eMAG"
		}
	case 0x51:
		switch part {
		case 0x001:
			return "Oryon", ""
		case 0x800:
			return "Kryo 2XX Gold", ""
		case 0x801:
			return "Kryo 2XX Silver", ""
		case 0x802:
			return "Kryo 3XX Gold", ""
		case 0x803:
			return "Kryo 3XX Silver", ""
		case 0x804:
			return "Kryo 4XX Gold", ""
		case 0x805:
			return "Kryo 4XX Silver", ""
		case 0xc00:
			return "Falkor", "Centriq 2400"
		case 0xc01:
			return "Saphira", ""
		}
	case 0x61:
		return appleCore(part), ""
	case 0x6d:
		if part == 0xd49 {
			return "Neoverse-N2", "Azure Cobalt 100"
		}
	case 0x70:
		switch part {
		case 0x660:
			return "FTC660", ""
		case 0x661:
			return "FTC661", ""
		case 0x662:
			return "FTC662", ""
		case 0x663:
			return "FTC663", ""
		case 0x664:
			return "FTC664", ""
		case 0x862:
			return "FTC862", ""
		}
	case 0xc0:
		switch part {
		case 0xac3:
			return "AmpereOne", ""
		case 0xac4:
			return "AmpereOne-A", ""
		case 0xac5:
			return "AmpereOne-M", ""
		}
	}
	return "", ""
}

// armLtdCore names the cores ARM Ltd designs (implementer 0x41).
func armLtdCore(part uint64) string {
	switch part {
	case 0xd01:
		return "Cortex-A32"
	case 0xd02:
		return "Cortex-A34"
	case 0xd03:
		return "Cortex-A53"
	case 0xd04:
		return "Cortex-A35"
	case 0xd05:
		return "Cortex-A55"
	case 0xd06:
		return "Cortex-A65"
	case 0xd07:
		return "Cortex-A57"
	case 0xd08:
		return "Cortex-A72"
	case 0xd09:
		return "Cortex-A73"
	case 0xd0a:
		return "Cortex-A75"
	case 0xd0b:
		return "Cortex-A76"
	case 0xd0c:
		return "Neoverse-N1"
	case 0xd0d:
		return "Cortex-A77"
	case 0xd0e:
		return "Cortex-A76AE"
	case 0xd40:
		return "Neoverse-V1"
	case 0xd41:
		return "Cortex-A78"
	case 0xd42:
		return "Cortex-A78AE"
	case 0xd43:
		return "Cortex-A65AE"
	case 0xd44:
		return "Cortex-X1"
	case 0xd46:
		return "Cortex-A510"
	case 0xd47:
		return "Cortex-A710"
	case 0xd48:
		return "Cortex-X2"
	case 0xd49:
		return "Neoverse-N2"
	case 0xd4a:
		return "Neoverse-E1"
	case 0xd4b:
		return "Cortex-A78C"
	case 0xd4c:
		return "Cortex-X1C"
	case 0xd4d:
		return "Cortex-A715"
	case 0xd4e:
		return "Cortex-X3"
	case 0xd4f:
		return "Neoverse-V2"
	case 0xd80:
		return "Cortex-A520"
	case 0xd81:
		return "Cortex-A720"
	case 0xd82:
		return "Cortex-X4"
	case 0xd83:
		return "Neoverse-V3AE"
	case 0xd84:
		return "Neoverse-V3"
	case 0xd85:
		return "Cortex-X925"
	case 0xd87:
		return "Cortex-A725"
	case 0xd8e:
		return "Neoverse-N3"
	}
	return ""
}

// appleCore names Apple's cores (implementer 0x61).
func appleCore(part uint64) string {
	switch part {
	case 0x022:
		return "M1 Icestorm"
	case 0x023:
		return "M1 Firestorm"
	case 0x024:
		return "M1 Pro Icestorm"
	case 0x025:
		return "M1 Pro Firestorm"
	case 0x028:
		return "M1 Max Icestorm"
	case 0x029:
		return "M1 Max Firestorm"
	case 0x032:
		return "M2 Blizzard"
	case 0x033:
		return "M2 Avalanche"
	case 0x034:
		return "M2 Pro Blizzard"
	case 0x035:
		return "M2 Pro Avalanche"
	case 0x038:
		return "M2 Max Blizzard"
	case 0x039:
		return "M2 Max Avalanche"
	}
	return ""
}

// gravitonGeneration names the AWS Graviton built on an ARM core, for machines
// whose DMI says they are Amazon EC2 instances.
func gravitonGeneration(core string) string {
	switch core {
	case "Cortex-A72":
		return "AWS Graviton"
	case "Neoverse-N1":
		return "AWS Graviton2"
	case "Neoverse-V1":
		return "AWS Graviton3"
	case "Neoverse-V2":
		return "AWS Graviton4"
	}
	return ""
}
