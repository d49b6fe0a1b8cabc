// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ChannelConfig, VoucherClaim} from "./BatchSettlementTypes.sol";

/// @title BatchSettlementDigests
/// @notice The EIP-712 hashing of the x402 `batch-settlement` scheme under the domain
/// ("x402 Batch Settlement", "1", chainId, this contract). Channel ids, vouchers, refunds and
/// claim batches use distinct type hashes, so a signature for one never passes as another.
/// @dev No immutables and no constructor: the localnet places the runtime code at the canonical
/// address with a set-code call, which runs no constructor, so everything is either a compile-time
/// constant or computed from `address(this)` and `block.chainid` at call time.
abstract contract BatchSettlementDigests {
    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 internal constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 internal constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 internal constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    /// @dev EIP-712 appends referenced struct types, sorted, after the primary type.
    bytes32 internal constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");

    /// @notice The EIP-712 domain separator, bound to this chain and this address.
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice A channel's id: the EIP-712 typed-data hash of its config.
    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        bytes32 structHash = keccak256(
            abi.encode(
                CHANNEL_CONFIG_TYPEHASH,
                config.payer,
                config.payerAuthorizer,
                config.receiver,
                config.receiverAuthorizer,
                config.token,
                config.withdrawDelay,
                config.salt
            )
        );
        return _typedDataHash(structHash);
    }

    /// @notice The digest a payer (or its payerAuthorizer) signs for a cumulative voucher.
    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    /// @notice The digest the receiverAuthorizer signs to let anyone relay a refund.
    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// @notice The digest the receiverAuthorizer signs over a whole claim batch (every row's
    /// channel id, voucher ceiling and new cumulative total, in order).
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes32[] memory entryHashes = new bytes32[](voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            VoucherClaim calldata c = voucherClaims[i];
            entryHashes[i] = keccak256(
                abi.encode(
                    CLAIM_ENTRY_TYPEHASH, getChannelId(c.voucher.channel), c.voucher.maxClaimableAmount, c.totalClaimed
                )
            );
        }
        // EIP-712 encodes an array of structs as the hash of its members' hashes, concatenated.
        bytes32 claimsHash = keccak256(abi.encodePacked(entryHashes));
        return _typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, claimsHash)));
    }

    function _typedDataHash(bytes32 structHash) internal view returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domainSeparator(), structHash));
    }
}
